// Tests that use the default pool and, like most callers of a package-level pool, never
// release it; one test also leaks a result sender after a timeout.
package defaultpool

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestSubmitSums(t *testing.T) {
	var wg sync.WaitGroup
	var sum atomic.Int64
	for i := 1; i <= 20; i++ {
		wg.Add(1)
		n := int64(i)
		if err := Submit(func() { defer wg.Done(); sum.Add(n) }); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if got := sum.Load(); got != 210 {
		t.Fatalf("sum = %d, want 210", got)
	}
}

func TestSubmitSlowTasks(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		if err := Submit(func() { defer wg.Done(); time.Sleep(3 * time.Millisecond) }); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if r := Running(); r > 4 {
		t.Fatalf("running = %d, above capacity", r)
	}
}

func TestSubmitAfterIdle(t *testing.T) {
	time.Sleep(20 * time.Millisecond) // the purge loop ticks while the pool is idle
	done := make(chan struct{})
	if err := Submit(func() { close(done) }); err != nil {
		t.Fatal(err)
	}
	<-done
}

func TestFetchTimesOut(t *testing.T) {
	if _, err := FetchWithTimeout("profile", 30*time.Millisecond, 2*time.Millisecond); err != errTimeout {
		t.Fatalf("err = %v, want a timeout", err)
	}
	time.Sleep(40 * time.Millisecond) // the backend answers meanwhile and blocks sending
}
