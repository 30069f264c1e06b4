// Bug class: double locking through a forgotten unlock. Recorder.Record returns
// early on a rejected sample while still holding its mutex, so every later Record
// call blocks in Lock. The reporter that sent the bad sample always blocks on its
// next call; the test gives up after a deadline and the reporters leak.
package earlyreturn

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// Recorder accumulates named metric samples.
type Recorder struct {
	mu     sync.Mutex
	totals map[string]int
}

// Record adds a sample; negative samples are rejected.
func (r *Recorder) Record(name string, v int) error {
	r.mu.Lock()
	if v < 0 {
		// Bug: returns without r.mu.Unlock().
		return fmt.Errorf("rejected negative sample %d for %s", v, name)
	}
	r.totals[name] += v
	r.mu.Unlock()
	return nil
}

func TestRecorderEarlyReturn(t *testing.T) {
	r := &Recorder{totals: make(map[string]int)}
	var wg sync.WaitGroup
	for id := 0; id < 3; id++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			name := fmt.Sprintf("reporter-%d", id)
			for i := 0; i < 20; i++ {
				v := i
				if id == 0 && i == 5 {
					v = -1 // a clock skew produced a negative latency
				}
				if err := r.Record(name, v); err != nil {
					t.Log(err)
				}
			}
		}(id)
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(50 * time.Millisecond):
		t.Log("reporters did not finish")
	}
}
