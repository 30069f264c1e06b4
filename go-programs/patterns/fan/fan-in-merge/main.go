// Package main merges the event streams of five sensors into one channel: one
// forwarding goroutine per input and a closer that closes the output once all
// forwarders are done. The arrival order of events is up to the scheduler.
package main

import (
	"fmt"
	"sync"
)

type reading struct {
	sensor string
	value  float64
}

func sensor(name string, n int, base float64) <-chan reading {
	out := make(chan reading)
	go func() {
		defer close(out)
		v := base
		for i := 0; i < n; i++ {
			v = v*0.9 + float64(i%7)
			out <- reading{sensor: name, value: v}
		}
	}()
	return out
}

func merge(inputs ...<-chan reading) <-chan reading {
	out := make(chan reading)
	var wg sync.WaitGroup
	for _, in := range inputs {
		wg.Add(1)
		go func(in <-chan reading) {
			defer wg.Done()
			for r := range in {
				out <- r
			}
		}(in)
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

func main() {
	merged := merge(
		sensor("boiler", 20, 70), sensor("intake", 20, 12), sensor("exhaust", 20, 140),
		sensor("pump", 20, 33), sensor("tank", 20, 50),
	)
	count := map[string]int{}
	for r := range merged {
		count[r.sensor]++
	}
	fmt.Println("sensors", len(count))
}
