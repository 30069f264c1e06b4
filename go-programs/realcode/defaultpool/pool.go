// A goroutine pool with a package-level default instance started at package init, the
// way pool libraries offer one ready to use: its purge loop and clock loop run for the
// life of the process and are never released by the code that submits to it.
package defaultpool

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Pool runs submitted tasks on a bounded number of workers; idle workers are purged.
type Pool struct {
	tasks    chan func()
	mu       sync.Mutex
	running  int
	capacity int
	purged   atomic.Int64
	now      atomic.Int64 // coarse clock kept by the clock loop, read by workers
	stop     chan struct{}
	once     sync.Once
}

// NewPool starts a pool of at most capacity workers with its purge and clock loops.
func NewPool(capacity int) *Pool {
	p := &Pool{tasks: make(chan func(), 64), capacity: capacity, stop: make(chan struct{})}
	p.now.Store(time.Now().UnixNano())
	go p.purgeLoop(8 * time.Millisecond)
	go p.clockLoop(2 * time.Millisecond)
	return p
}

// defaultPool is what the package-level Submit uses; nothing ever releases it.
var defaultPool = NewPool(4)

// Submit queues task on the default pool.
func Submit(task func()) error { return defaultPool.Submit(task) }

// Running reports the default pool's live workers.
func Running() int { return defaultPool.Running() }

func (p *Pool) purgeLoop(every time.Duration) {
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			p.mu.Lock()
			if p.running == 0 {
				p.purged.Add(1)
			}
			p.mu.Unlock()
		case <-p.stop:
			return
		}
	}
}

func (p *Pool) clockLoop(every time.Duration) {
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		select {
		case t := <-ticker.C:
			p.now.Store(t.UnixNano())
		case <-p.stop:
			return
		}
	}
}

var errFull = errors.New("pool queue is full")

// Submit queues task and starts a worker when fewer than capacity are running.
func (p *Pool) Submit(task func()) error {
	select {
	case p.tasks <- task:
	default:
		return errFull
	}
	p.mu.Lock()
	if p.running < p.capacity {
		p.running++
		go p.worker()
	}
	p.mu.Unlock()
	return nil
}

// worker drains the queue and exits when it finds it empty.
func (p *Pool) worker() {
	for {
		select {
		case task := <-p.tasks:
			task()
		default:
			p.mu.Lock()
			if len(p.tasks) > 0 {
				p.mu.Unlock()
				continue
			}
			p.running--
			p.mu.Unlock()
			return
		}
	}
}

// Running is the number of live workers.
func (p *Pool) Running() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running
}

// Release stops the pool's loops.
func (p *Pool) Release() { p.once.Do(func() { close(p.stop) }) }
