// Passes in plain runs and fails when the worker is delayed after Done. The tasks start
// together a millisecond after the test parked in Wait, so Wait is woken by the last
// Done and the woken test goroutine queues behind the worker that woke it, which
// finishes its bookkeeping first unless something delays it right after Done.
package flakywait

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestWaitDrainsWorkers(t *testing.T) {
	var g Group
	var sum atomic.Int64
	gate := make(chan struct{})
	for i := 1; i <= 4; i++ {
		n := int64(i)
		g.Go(func() { <-gate; sum.Add(n) })
	}
	time.AfterFunc(time.Millisecond, func() { close(gate) })
	g.Wait()
	if got := sum.Load(); got != 10 {
		t.Fatalf("sum = %d, want 10", got)
	}
	if a := g.Active(); a != 0 {
		t.Fatalf("Active() = %d after Wait, want 0", a)
	}
}
