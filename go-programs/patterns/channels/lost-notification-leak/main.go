// Package main invalidates cached query plans when the schema changes. The
// migrator notifies each plan cache with a non-blocking send, so a cache that is
// still busy compiling when the notification is sent misses it, and then waits
// forever for a notification that has already gone by. Whether a cache is busy at
// that moment depends on the schedule.
package main

import (
	"fmt"
	"sync"
	"time"
)

type planCache struct {
	name        string
	invalidated chan int
	plans       map[string]int
}

func (c *planCache) compile(queries int) {
	for q := 0; q < queries; q++ {
		cost := 0
		for i := 0; i < 20000; i++ {
			cost += (i * q) % 7
		}
		c.plans[fmt.Sprintf("q%d", q)] = cost
	}
}

func (c *planCache) serve(queries int, ready *sync.WaitGroup, dropped chan<- string) {
	ready.Done()
	c.compile(queries)
	version := <-c.invalidated // bug: a notification sent during compile was dropped
	c.plans = map[string]int{}
	dropped <- fmt.Sprintf("%s@v%d", c.name, version)
}

func main() {
	caches := []*planCache{}
	var ready sync.WaitGroup
	dropped := make(chan string, 6)
	for i := 0; i < 6; i++ {
		c := &planCache{name: fmt.Sprintf("shard-%d", i), invalidated: make(chan int), plans: map[string]int{}}
		caches = append(caches, c)
		ready.Add(1)
		go c.serve(4+i*6, &ready, dropped)
	}
	ready.Wait()
	time.Sleep(100 * time.Microsecond) // the migration itself
	for _, c := range caches {
		select {
		case c.invalidated <- 2:
		default: // cache busy: skip rather than stall the migration
		}
	}
	time.Sleep(2 * time.Millisecond)
	fmt.Println("caches invalidated", len(dropped))
}
