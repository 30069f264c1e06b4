// Bug class: channel and lock. Reporter.Stop holds the reporter mutex while it
// hands the last partial sample to the collector loop and then asks the loop to
// stop; the loop needs the mutex to record that sample. The hand-off completes
// only after Stop holds the mutex, so the test goroutine blocks sending the stop
// request (chan send) and the collector blocks in sync on every schedule.
package statsreporter

import (
	"sync"
	"testing"
)

// Reporter aggregates samples on a background collector goroutine.
type Reporter struct {
	mu      sync.Mutex
	total   int
	count   int
	pending int
	stopped bool
	samples chan int
	stop    chan struct{}
}

func Start() *Reporter {
	r := &Reporter{samples: make(chan int), stop: make(chan struct{})}
	go r.collect()
	return r
}

func (r *Reporter) collect() {
	for {
		select {
		case s := <-r.samples:
			r.mu.Lock()
			r.total += s
			r.count++
			r.mu.Unlock()
		case <-r.stop:
			return
		}
	}
}

// Add hands one sample to the collector.
func (r *Reporter) Add(v int) { r.samples <- v }

// Stop flushes the partial sample and waits for the collector to take the stop request.
func (r *Reporter) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	r.samples <- r.pending // Bug: the collector needs r.mu to record it
	r.stop <- struct{}{}
}

func TestStopWhileCollecting(t *testing.T) {
	r := Start()
	for i := 1; i <= 3; i++ {
		r.Add(i * 10)
	}
	r.pending = 5
	r.Stop()
	if r.count != 4 {
		t.Fatalf("collected %d samples", r.count)
	}
}
