// Package main rate-limits API clients with a token bucket: a refill goroutine
// adds a token to a buffered channel on every tick, and clients take a token
// before each call. Which client gets the next token is up to the scheduler.
package main

import (
	"fmt"
	"sync"
	"time"
)

type limiter struct {
	tokens chan struct{}
	stop   chan struct{}
}

func newLimiter(burst int, every time.Duration) *limiter {
	l := &limiter{tokens: make(chan struct{}, burst), stop: make(chan struct{})}
	for i := 0; i < burst; i++ {
		l.tokens <- struct{}{}
	}
	go l.refill(every)
	return l
}

func (l *limiter) refill(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			select {
			case l.tokens <- struct{}{}:
			default: // bucket full
			}
		case <-l.stop:
			return
		}
	}
}

func (l *limiter) wait() { <-l.tokens }

func client(id int, calls int, l *limiter, served []int, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < calls; i++ {
		l.wait()
		served[id]++
	}
}

func main() {
	l := newLimiter(5, 100*time.Microsecond)
	served := make([]int, 4)
	var wg sync.WaitGroup
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go client(c, 15, l, served, &wg)
	}
	wg.Wait()
	close(l.stop)
	fmt.Println("calls", served[0]+served[1]+served[2]+served[3])
}
