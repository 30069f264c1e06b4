// Package main monitors three services that each send heartbeats on their own
// ticker; a monitor selects over the heartbeats and its own check ticker and marks
// a service unhealthy when it misses a beat. Ticker phases make the interleaving vary.
package main

import (
	"fmt"
	"sync"
	"time"
)

type beat struct {
	service string
	at      time.Time
}

func heartbeat(name string, every time.Duration, beats int, out chan<- beat, wg *sync.WaitGroup) {
	defer wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for i := 0; i < beats; i++ {
		now := <-t.C
		out <- beat{service: name, at: now}
	}
}

func monitor(in <-chan beat, stop <-chan struct{}, report chan<- map[string]int) {
	check := time.NewTicker(700 * time.Microsecond)
	defer check.Stop()
	last := map[string]time.Time{}
	misses := map[string]int{}
	for {
		select {
		case b := <-in:
			last[b.service] = b.at
		case now := <-check.C:
			for svc, seen := range last {
				if now.Sub(seen) > 2*time.Millisecond {
					misses[svc]++
				}
			}
		case <-stop:
			report <- misses
			return
		}
	}
}

func main() {
	beats := make(chan beat)
	stop := make(chan struct{})
	report := make(chan map[string]int)
	go monitor(beats, stop, report)
	var wg sync.WaitGroup
	wg.Add(3)
	go heartbeat("auth", 300*time.Microsecond, 30, beats, &wg)
	go heartbeat("billing", 500*time.Microsecond, 20, beats, &wg)
	go heartbeat("search", 900*time.Microsecond, 10, beats, &wg)
	wg.Wait()
	close(stop)
	misses := <-report
	fmt.Println("services with misses", len(misses))
}
