// TestCompactionWithFakeClock starts a compaction that waits one second of fake time under
// the scheduler's lock, and two readers that read the run count before and after it began;
// the test never advances the clock, so the compaction and both readers stay blocked.
package fakeclock

import (
	"sync"
	"testing"
	"time"
)

func TestCompactionWithFakeClock(t *testing.T) {
	clock := newFakeClock()
	s := NewScheduler(clock)
	read, again := make(chan int), make(chan struct{})
	for i := 0; i < 2; i++ {
		go func() {
			read <- s.Runs("compact") // holds the lock briefly, before the compaction
			<-again
			s.Runs("compact") // blocks: the compaction holds the lock
		}()
	}
	if a, b := <-read, <-read; a+b != 0 {
		t.Fatalf("runs before compaction = %d, %d", a, b)
	}
	go s.RunExclusive("compact", time.Second, func() {})
	for clock.Waiters() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(again)
	time.Sleep(50 * time.Millisecond) // Bug: the clock is never advanced
}

// fakeClock is a test clock: time stands still until Advance moves it, and only Advance
// fires the channels After returned.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []fakeTimer
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.waiters = append(c.waiters, fakeTimer{at: c.now.Add(d), ch: ch})
	return ch
}

// Advance moves the clock forward by d and fires every timer now due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	pending := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			pending = append(pending, w)
		} else {
			w.ch <- c.now
		}
	}
	c.waiters = pending
}

// Waiters is the number of timers not fired yet.
func (c *fakeClock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}
