// A connection pool whose asynchronous shutdown locks the pool twice.
package poolclose

import "sync"

// Conn is a pooled connection.
type Conn struct {
	id     int
	closed bool
}

// Pool hands out connections and keeps released ones idle for reuse.
type Pool struct {
	mu     sync.Mutex
	idle   []*Conn
	inUse  map[int]*Conn
	nextID int
	closed bool
}

func NewPool() *Pool {
	return &Pool{inUse: make(map[int]*Conn)}
}

// Acquire returns an idle connection or dials a new one.
func (p *Pool) Acquire() *Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	var c *Conn
	if n := len(p.idle); n > 0 {
		c, p.idle = p.idle[n-1], p.idle[:n-1]
	} else {
		p.nextID++
		c = &Conn{id: p.nextID}
	}
	p.inUse[c.id] = c
	return c
}

// Release returns a connection to the idle list.
func (p *Pool) Release(c *Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.inUse, c.id)
	p.idle = append(p.idle, c)
}

// CloseAsync shuts the pool down in the background so callers never wait on it.
func (p *Pool) CloseAsync() {
	go p.shutdown()
}

func (p *Pool) shutdown() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	// Bug: drain takes p.mu again; the shutdown goroutine blocks on itself.
	p.drain()
}

func (p *Pool) drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.idle {
		c.closed = true
	}
	p.idle = nil
}

// Closed reports whether shutdown has begun; it blocks while the pool lock is held.
func (p *Pool) Closed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}
