// Package main stops a set of session reapers by closing a shared quit channel:
// the close wakes every goroutine blocked in select on it at once.
package main

import (
	"fmt"
	"sync"
	"time"
)

type sessionTable struct {
	mu       sync.Mutex
	sessions map[string]time.Time
	reaped   int
}

func (t *sessionTable) touch(id string, at time.Time) {
	t.mu.Lock()
	t.sessions[id] = at
	t.mu.Unlock()
}

func (t *sessionTable) reapOlderThan(cutoff time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, seen := range t.sessions {
		if seen.Before(cutoff) {
			delete(t.sessions, id)
			t.reaped++
		}
	}
}

func reaper(t *sessionTable, every time.Duration, quit <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case now := <-tick.C:
			t.reapOlderThan(now.Add(-3 * time.Millisecond))
		case <-quit:
			return
		}
	}
}

func main() {
	table := &sessionTable{sessions: make(map[string]time.Time)}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go reaper(table, time.Duration(i+1)*time.Millisecond, quit, &wg)
	}
	for i := 0; i < 200; i++ {
		table.touch(fmt.Sprintf("s%d", i%37), time.Now())
		if i%20 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	time.Sleep(5 * time.Millisecond)
	close(quit)
	wg.Wait()
	fmt.Println("reaped", table.reaped > 0)
}
