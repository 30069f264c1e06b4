// Bug class: a condition variable's missed signal. Gate.Wait calls Cond.Wait
// without checking a predicate, so a worker that reaches Wait after Open has
// broadcast sleeps in sync.(*Cond).Wait forever. Shows on some schedules: Open is
// called right after the workers start, racing their arrival at the gate.
package gateopen

import (
	"sync"
	"testing"
	"time"
)

// Gate holds workers back until it is opened.
type Gate struct {
	mu   sync.Mutex
	cond *sync.Cond
}

func NewGate() *Gate {
	g := &Gate{}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// Wait blocks until the gate is opened.
func (g *Gate) Wait() {
	g.mu.Lock()
	g.cond.Wait() // Bug: no `for !g.open` loop, so an earlier Broadcast is lost
	g.mu.Unlock()
}

// Open releases every waiting worker.
func (g *Gate) Open() {
	g.mu.Lock()
	g.cond.Broadcast()
	g.mu.Unlock()
}

func TestWorkersStartAtGate(t *testing.T) {
	g := NewGate()
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			sum := 0
			for i := 0; i < 20000*(w+1); i++ { // load this worker's shard first
				sum += i
			}
			_ = sum
			g.Wait()
		}(w)
	}
	time.Sleep(20 * time.Microsecond)
	g.Open()
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(20 * time.Millisecond):
		t.Log("a worker missed the gate opening")
	}
}
