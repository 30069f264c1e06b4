// Package main gates batch workers on a "warehouse open" condition. The opener
// calls Signal, which wakes only one waiter, where Broadcast was needed; the
// other workers stay in Cond.Wait forever. main only waits for the first batch.
package main

import (
	"fmt"
	"sync"
	"time"
)

type warehouse struct {
	mu     sync.Mutex
	opened *sync.Cond
	open   bool
	picked int
}

func (w *warehouse) waitOpen() {
	w.mu.Lock()
	for !w.open {
		w.opened.Wait()
	}
	w.mu.Unlock()
}

func (w *warehouse) pickBatch(worker int, first chan<- int) {
	w.waitOpen()
	for i := 0; i < 10; i++ {
		w.mu.Lock()
		w.picked++
		w.mu.Unlock()
		time.Sleep(10 * time.Microsecond)
	}
	first <- worker
}

func main() {
	w := &warehouse{}
	w.opened = sync.NewCond(&w.mu)
	first := make(chan int, 5)
	for i := 0; i < 5; i++ {
		go w.pickBatch(i, first)
	}
	time.Sleep(2 * time.Millisecond) // the morning checklist
	w.mu.Lock()
	w.open = true
	w.opened.Signal() // bug: should be Broadcast
	w.mu.Unlock()

	worker := <-first
	time.Sleep(time.Millisecond)
	fmt.Println("first batch by worker", worker)
}
