// Bug class: select with no case that can ever fire. Worker.Restart replaces the
// quit channel while the running loop still selects on the old one, and the job
// channel is abandoned too; Stop closes the new quit channel, so the old loop's
// select can never fire and the loop leaks on every schedule.
package restartquit

import (
	"sync/atomic"
	"testing"
	"time"
)

// Worker processes jobs until told to quit.
type Worker struct {
	jobs      chan string
	quit      chan struct{}
	processed atomic.Int64
}

func NewWorker() *Worker {
	w := &Worker{jobs: make(chan string), quit: make(chan struct{})}
	go w.loop(w.jobs, w.quit)
	return w
}

func (w *Worker) loop(jobs <-chan string, quit <-chan struct{}) {
	for {
		select {
		case j := <-jobs:
			_ = j
			w.processed.Add(1)
		case <-quit:
			return
		}
	}
}

// Restart gives the worker fresh channels, e.g. after a configuration change.
func (w *Worker) Restart() {
	w.jobs = make(chan string)
	w.quit = make(chan struct{}) // Bug: the old loop still selects on the old channels
	go w.loop(w.jobs, w.quit)
}

// Stop ends the worker's loop.
func (w *Worker) Stop() { close(w.quit) }

func TestRestartThenStop(t *testing.T) {
	w := NewWorker()
	for i := 0; i < 10; i++ {
		w.jobs <- "resize"
	}
	w.Restart()
	for i := 0; i < 10; i++ {
		w.jobs <- "thumbnail"
	}
	w.Stop()
	time.Sleep(5 * time.Millisecond)
	if n := w.processed.Load(); n != 20 {
		t.Fatalf("processed %d jobs", n)
	}
}
