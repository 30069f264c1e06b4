// Bug class: a condition variable's missed signal. Shutdown wakes waiters with
// Signal instead of Broadcast, so only one of the three idle pollers sees the
// closed flag; the other two stay in sync.(*Cond).Wait and leak on every schedule.
package signalone

import (
	"sync"
	"testing"
	"time"
)

// Queue is a job queue whose pollers sleep on a condition variable.
type Queue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	jobs   []string
	closed bool
}

func NewQueue() *Queue {
	q := &Queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Next blocks until a job is available; ok is false once the queue is closed.
func (q *Queue) Next() (job string, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.jobs) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.jobs) == 0 {
		return "", false
	}
	job, q.jobs = q.jobs[0], q.jobs[1:]
	return job, true
}

// Push adds a job and wakes one poller.
func (q *Queue) Push(job string) {
	q.mu.Lock()
	q.jobs = append(q.jobs, job)
	q.mu.Unlock()
	q.cond.Signal()
}

// Shutdown closes the queue.
func (q *Queue) Shutdown() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Signal() // Bug: must Broadcast to every idle poller
}

func TestShutdownWakesPollers(t *testing.T) {
	q := NewQueue()
	exited := make(chan int, 3)
	for p := 0; p < 3; p++ {
		go func(p int) {
			for {
				if _, ok := q.Next(); !ok {
					exited <- p
					return
				}
			}
		}(p)
	}
	for i := 0; i < 12; i++ {
		q.Push("email")
	}
	time.Sleep(5 * time.Millisecond) // pollers drain the queue and go idle
	q.Shutdown()
	time.Sleep(5 * time.Millisecond)
	if n := len(exited); n != 3 {
		t.Logf("%d of 3 pollers exited", n)
	}
}
