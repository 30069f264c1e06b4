// A connection-style pool with a ticker-driven purge loop that only Release stops.
package poolnorelease

import (
	"sync"
	"time"
)

// Pool hands out reusable buffers and drops those idle for longer than maxIdle.
type Pool struct {
	mu      sync.Mutex
	idle    []entry
	maxIdle time.Duration
	stop    chan struct{}
	once    sync.Once
}

type entry struct {
	buf      []byte
	lastUsed time.Time
}

// NewPool starts the purge loop; callers must Release the pool to stop it.
func NewPool(maxIdle time.Duration) *Pool {
	p := &Pool{maxIdle: maxIdle, stop: make(chan struct{})}
	go p.purgeLoop(maxIdle / 2)
	return p
}

func (p *Pool) purgeLoop(every time.Duration) {
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		select {
		case now := <-ticker.C:
			p.purge(now)
		case <-p.stop:
			return
		}
	}
}

func (p *Pool) purge(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.idle[:0]
	for _, e := range p.idle {
		if now.Sub(e.lastUsed) < p.maxIdle {
			kept = append(kept, e)
		}
	}
	p.idle = kept
}

// Get returns an idle buffer or a new one.
func (p *Pool) Get() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		b := p.idle[n-1].buf
		p.idle = p.idle[:n-1]
		return b[:0]
	}
	return make([]byte, 0, 512)
}

// Put returns a buffer to the pool.
func (p *Pool) Put(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle = append(p.idle, entry{buf: b, lastUsed: time.Now()})
}

// Idle is the number of pooled buffers.
func (p *Pool) Idle() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// Release stops the purge loop.
func (p *Pool) Release() { p.once.Do(func() { close(p.stop) }) }
