// Bug class: a condition variable's missed signal. The barrier's last arrival
// resets the arrival count before broadcasting, so woken waiters re-check
// `arrived < parties`, find it true again and go back to sleep. The test goroutine
// arrives first and blocks in sync.(*Cond).Wait with one worker: the test hangs on
// every schedule.
package barrierreset

import (
	"sync"
	"testing"
	"time"
)

// Barrier releases its parties once all of them have arrived.
type Barrier struct {
	mu      sync.Mutex
	cond    *sync.Cond
	parties int
	arrived int
}

func NewBarrier(parties int) *Barrier {
	b := &Barrier{parties: parties}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// Await blocks until every party has called Await.
func (b *Barrier) Await() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.arrived++
	if b.arrived == b.parties {
		b.arrived = 0 // reset for the next phase
		b.cond.Broadcast()
		return
	}
	for b.arrived < b.parties { // Bug: should wait for a generation change
		b.cond.Wait()
	}
}

func TestPhaseBarrier(t *testing.T) {
	b := NewBarrier(3)
	for w := 1; w <= 2; w++ {
		go func(w int) {
			time.Sleep(time.Duration(w) * time.Millisecond) // finish this phase's work
			b.Await()
		}(w)
	}
	b.Await()
	t.Log("phase complete")
}
