// Package main runs jobs, each with a watcher goroutine that releases the job's
// lease when the job's context is cancelled. The success path forgets to call
// cancel, so those watchers wait on ctx.Done() forever.
package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

type leases struct {
	mu     sync.Mutex
	held   map[int]bool
	leaked int
}

func (l *leases) acquire(job int) {
	l.mu.Lock()
	l.held[job] = true
	l.mu.Unlock()
}

func (l *leases) release(job int) {
	l.mu.Lock()
	delete(l.held, job)
	l.mu.Unlock()
}

func runJob(parent context.Context, l *leases, job int) error {
	ctx, cancel := context.WithCancel(parent)
	l.acquire(job)
	go func() {
		<-ctx.Done()
		l.release(job)
	}()
	time.Sleep(100 * time.Microsecond) // the job's work
	if job%4 == 0 {
		cancel()
		return fmt.Errorf("job %d: bad input", job)
	}
	return nil // bug: cancel is not called on success
}

func main() {
	l := &leases{held: make(map[int]bool)}
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(worker int) {
			defer wg.Done()
			for j := worker; j < 24; j += 3 {
				_ = runJob(context.Background(), l, j)
			}
		}(w)
	}
	wg.Wait()
	time.Sleep(time.Millisecond)
	l.mu.Lock()
	fmt.Println("leases still held", len(l.held))
	l.mu.Unlock()
}
