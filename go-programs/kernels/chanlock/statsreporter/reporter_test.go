// Bug class: channel and lock. Reporter.Stop holds the reporter mutex while it
// sends the stop request to the collector loop; the loop, busy encoding the last
// sample, then needs the mutex to record it. The test goroutine blocks sending
// (chan send) and the collector blocks in sync: the test hangs on every schedule.
package statsreporter

import (
	"sync"
	"testing"
	"time"
)

// Reporter aggregates samples on a background collector goroutine.
type Reporter struct {
	mu      sync.Mutex
	total   int
	count   int
	stopped bool
	samples chan int
	stop    chan struct{}
}

func Start() *Reporter {
	r := &Reporter{samples: make(chan int, 8), stop: make(chan struct{})}
	go r.collect()
	return r
}

func (r *Reporter) collect() {
	for {
		select {
		case s := <-r.samples:
			time.Sleep(2 * time.Millisecond) // encode the sample for the backend
			r.mu.Lock()
			r.total += s
			r.count++
			r.mu.Unlock()
		case <-r.stop:
			return
		}
	}
}

// Add queues one sample.
func (r *Reporter) Add(v int) { r.samples <- v }

// Stop marks the reporter stopped and waits for the collector to take the request.
func (r *Reporter) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	r.stop <- struct{}{} // Bug: unbuffered send while holding r.mu
}

func TestStopWhileCollecting(t *testing.T) {
	r := Start()
	for i := 1; i <= 3; i++ {
		r.Add(i * 10)
	}
	time.Sleep(time.Millisecond)
	r.Stop()
	if r.count != 3 {
		t.Fatalf("collected %d samples", r.count)
	}
}
