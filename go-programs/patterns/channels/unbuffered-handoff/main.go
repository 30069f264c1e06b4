// Package main hands order events from several producers to one ledger goroutine
// over an unbuffered channel: every send meets a receive, so producers and the
// ledger rendezvous in whatever order the scheduler picks.
package main

import (
	"fmt"
	"sync"
)

type order struct {
	shop  int
	seq   int
	cents int
}

type ledger struct {
	totals map[int]int
	count  int
}

func (l *ledger) run(in <-chan order, done chan<- struct{}) {
	for o := range in {
		l.totals[o.shop] += o.cents
		l.count++
	}
	close(done)
}

func produce(shop int, n int, out chan<- order, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		out <- order{shop: shop, seq: i, cents: (shop+1)*100 + i}
	}
}

func main() {
	const shops = 4
	orders := make(chan order)
	done := make(chan struct{})
	l := &ledger{totals: make(map[int]int)}
	go l.run(orders, done)

	var wg sync.WaitGroup
	for s := 0; s < shops; s++ {
		wg.Add(1)
		go produce(s, 25, orders, &wg)
	}
	wg.Wait()
	close(orders)
	<-done
	fmt.Println("orders", l.count)
}
