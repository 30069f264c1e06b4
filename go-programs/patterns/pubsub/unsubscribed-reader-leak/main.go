// Package main has a price-feed broadcaster that pushes every tick to each
// subscriber over an unbuffered channel. One subscriber stops reading after it
// has seen enough but never unsubscribes, so the broadcaster blocks forever on
// its next send to it; the publisher feeding the broadcaster blocks behind it and
// the chart subscriber waits for ticks that no longer come.
package main

import (
	"fmt"
	"sync"
)

type tick struct {
	symbol string
	price  int
}

type feed struct {
	mu   sync.Mutex
	subs []chan tick
}

func (f *feed) subscribe() chan tick {
	ch := make(chan tick)
	f.mu.Lock()
	f.subs = append(f.subs, ch)
	f.mu.Unlock()
	return ch
}

func (f *feed) broadcast(in <-chan tick) {
	for t := range in {
		f.mu.Lock()
		subs := append([]chan tick(nil), f.subs...)
		f.mu.Unlock()
		for _, ch := range subs {
			ch <- t
		}
	}
}

func main() {
	f := &feed{}
	ticks := make(chan tick)
	chart := f.subscribe()
	alerts := f.subscribe()
	go f.broadcast(ticks)

	chartSeen := 0
	go func() { // the chart reads every tick
		for range chart {
			chartSeen++
		}
	}()
	alerted := make(chan struct{})
	go func() { // the alerter only needs the first few ticks, then walks away
		for i := 0; i < 4; i++ {
			<-alerts
		}
		close(alerted)
	}()
	go func() {
		for i := 0; i < 10; i++ {
			ticks <- tick{symbol: "EURUSD", price: 10800 + i}
		}
		close(ticks)
	}()
	<-alerted
	fmt.Println("alerts armed")
}
