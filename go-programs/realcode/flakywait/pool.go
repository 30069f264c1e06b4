// A task group that tracks its active workers for a status page. Wait returns as soon
// as every worker has called wg.Done, but a worker decrements the active count only
// after Done, under the mutex: Wait can return while Active is still above zero.
package flakywait

import "sync"

// Group runs tasks in goroutines and reports how many are active.
type Group struct {
	wg     sync.WaitGroup
	mu     sync.Mutex
	active int
}

// Go runs task in a new goroutine.
func (g *Group) Go(task func()) {
	g.mu.Lock()
	g.active++
	g.mu.Unlock()
	g.wg.Add(1)
	go func() {
		task()
		g.wg.Done() // Bug: signals Wait before the bookkeeping below
		g.mu.Lock()
		g.active--
		g.mu.Unlock()
	}()
}

// Wait blocks until every task has called Done.
func (g *Group) Wait() { g.wg.Wait() }

// Active is the number of workers that have not finished their bookkeeping.
func (g *Group) Active() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.active
}
