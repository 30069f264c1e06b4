// TestSubmitSums uses the default pool like any caller: its workers are still parked on
// the task channel when the test returns, waiting to be reused or purged after 5 s.
package globalpool

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestSubmitSums(t *testing.T) {
	var wg sync.WaitGroup
	var sum atomic.Int64
	for i := 1; i <= 12; i++ {
		wg.Add(1)
		n := int64(i)
		Submit(func() {
			defer wg.Done()
			time.Sleep(2 * time.Millisecond)
			sum.Add(n)
		})
	}
	wg.Wait()
	if got := sum.Load(); got != 78 {
		t.Fatalf("sum = %d, want 78", got)
	}
}
