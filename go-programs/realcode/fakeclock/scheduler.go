// A job scheduler that takes its time from a Clock so tests can drive it with a fake one;
// RunExclusive waits for its delay while holding the scheduler's lock.
package fakeclock

import (
	"sync"
	"time"
)

// Clock is the scheduler's source of time.
type Clock interface {
	After(d time.Duration) <-chan time.Time
}

// Scheduler runs jobs one at a time and counts the runs of each.
type Scheduler struct {
	clock Clock
	mu    sync.Mutex
	runs  map[string]int
}

// NewScheduler returns a scheduler reading time from clock.
func NewScheduler(clock Clock) *Scheduler {
	return &Scheduler{clock: clock, runs: map[string]int{}}
}

// RunExclusive runs job as name after delay, with no other job or reader in between.
func (s *Scheduler) RunExclusive(name string, delay time.Duration, job func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	<-s.clock.After(delay) // Bug: waits for the clock while holding the lock
	job()
	s.runs[name]++
}

// Runs reports how many times name has run.
func (s *Scheduler) Runs(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[name]
}
