// Package main records request latencies through a non-blocking metrics channel:
// handlers use select with a default case so a busy collector drops samples
// instead of slowing requests down. How many samples are dropped depends on the schedule.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

type sample struct {
	route   string
	latency time.Duration
}

type collector struct {
	in      chan sample
	dropped atomic.Int64
	byRoute map[string]time.Duration
	done    chan struct{}
}

func newCollector() *collector {
	return &collector{in: make(chan sample, 2), byRoute: make(map[string]time.Duration), done: make(chan struct{})}
}

func (c *collector) record(s sample) {
	select {
	case c.in <- s:
	default:
		c.dropped.Add(1)
	}
}

func (c *collector) run() {
	for s := range c.in {
		c.byRoute[s.route] += s.latency
		if len(c.byRoute)%2 == 0 {
			time.Sleep(50 * time.Microsecond) // flushing a batch
		}
	}
	close(c.done)
}

func handle(route string, n int, c *collector, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		start := time.Now()
		buf := make([]byte, 0, 64)
		for j := 0; j < 200; j++ {
			buf = append(buf[:0], route...)
		}
		c.record(sample{route: route, latency: time.Since(start)})
		if i%8 == 0 {
			time.Sleep(20 * time.Microsecond)
		}
	}
}

func main() {
	c := newCollector()
	go c.run()
	var wg sync.WaitGroup
	for _, r := range []string{"/login", "/cart", "/search", "/checkout"} {
		wg.Add(1)
		go handle(r, 40, c, &wg)
	}
	wg.Wait()
	close(c.in)
	<-c.done
	fmt.Println("routes", len(c.byRoute), "dropped>0", c.dropped.Load() > 0)
}
