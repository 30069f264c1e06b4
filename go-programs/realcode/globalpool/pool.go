// A worker pool with a package-level default instance, the way pool libraries offer one
// ready to use: workers start on demand and park on the task channel until the purger,
// started at package init, stops those idle for longer than maxIdle.
package globalpool

import (
	"sync"
	"time"
)

// Pool runs submitted tasks on at most size workers.
type Pool struct {
	tasks   chan func()
	size    int
	maxIdle time.Duration

	mu       sync.Mutex
	workers  int
	lastUsed time.Time
}

func newPool(size int, maxIdle time.Duration) *Pool {
	p := &Pool{tasks: make(chan func()), size: size, maxIdle: maxIdle, lastUsed: time.Now()}
	go p.purge(maxIdle / 5)
	return p
}

// defaultPool serves the package-level Submit; nothing ever stops it.
var defaultPool = newPool(4, 5*time.Second)

// Submit runs task on the default pool.
func Submit(task func()) { defaultPool.Submit(task) }

// Submit hands task to an idle worker, starting a new one while fewer than size run.
func (p *Pool) Submit(task func()) {
	p.mu.Lock()
	p.lastUsed = time.Now()
	p.mu.Unlock()
	select {
	case p.tasks <- task:
		return
	default:
	}
	p.mu.Lock()
	if p.workers < p.size {
		p.workers++
		go p.work()
	}
	p.mu.Unlock()
	p.tasks <- task
}

// work runs tasks until it receives nil, the purger's signal to stop.
func (p *Pool) work() {
	for task := range p.tasks {
		if task == nil {
			return
		}
		task()
	}
}

// purge stops every worker once the pool has been idle for longer than maxIdle.
func (p *Pool) purge(every time.Duration) {
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for now := range ticker.C {
		p.mu.Lock()
		idle := p.workers
		if now.Sub(p.lastUsed) <= p.maxIdle {
			idle = 0
		}
		p.workers -= idle
		p.mu.Unlock()
		for ; idle > 0; idle-- {
			p.tasks <- nil
		}
	}
}
