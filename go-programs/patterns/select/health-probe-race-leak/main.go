// Package main probes backends one after another. Each probe reports on an
// unbuffered channel, and the prober waits for the report or a 4 ms deadline,
// which the two slow backends' probes only just beat. Whenever the deadline wins
// the race, the probe's report has no receiver and its goroutine blocks forever;
// when the probe wins, nothing leaks. Which one wins depends on the schedule.
package main

import (
	"fmt"
	"time"
)

type status struct {
	backend string
	healthy bool
	latency time.Duration
}

func probe(backend string, cost time.Duration, out chan<- status) {
	start := time.Now()
	time.Sleep(cost) // the TCP connect and HTTP round trip
	out <- status{backend: backend, healthy: true, latency: time.Since(start)}
}

func check(backend string, cost, deadline time.Duration) (status, bool) {
	out := make(chan status)
	go probe(backend, cost, out)
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case s := <-out:
		return s, true
	case <-timer.C:
		return status{backend: backend}, false
	}
}

func main() {
	backends := []string{"api-1", "api-2", "api-3", "db-primary", "db-replica", "cache", "search", "queue"}
	healthy, unknown := 0, 0
	for i, b := range backends {
		cost := time.Duration(500+100*i) * time.Microsecond
		if b == "search" || b == "db-replica" {
			cost = 3700 * time.Microsecond // just under the deadline: a coin flip
		}
		if _, ok := check(b, cost, 4*time.Millisecond); ok {
			healthy++
		} else {
			unknown++
		}
	}
	time.Sleep(time.Millisecond)
	fmt.Println("healthy", healthy, "unknown", unknown)
}
