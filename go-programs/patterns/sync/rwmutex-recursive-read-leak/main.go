// Package main keeps an inventory behind an RWMutex. report() holds the read lock
// and calls total(), which read-locks again. If the restocking writer calls Lock
// between the two RLocks, the second RLock waits behind the writer, which waits
// for the first RLock: both are stuck. main gives up after a deadline and returns.
package main

import (
	"fmt"
	"sync"
	"time"
)

type inventory struct {
	mu     sync.RWMutex
	counts map[string]int
}

func (inv *inventory) total() int {
	inv.mu.RLock()
	defer inv.mu.RUnlock()
	sum := 0
	for _, n := range inv.counts {
		sum += n
	}
	return sum
}

func (inv *inventory) report(done chan<- string) {
	inv.mu.RLock()
	defer inv.mu.RUnlock()
	lines := 0
	for sku := range inv.counts {
		lines += len(sku)
	}
	time.Sleep(time.Millisecond) // formatting the report
	done <- fmt.Sprintf("%d skus, %d units, %d chars", len(inv.counts), inv.total(), lines)
}

func (inv *inventory) restock(sku string, n int, done chan<- string) {
	inv.mu.Lock()
	inv.counts[sku] += n
	inv.mu.Unlock()
	done <- "restocked " + sku
}

func (inv *inventory) pick(sku string, n int) bool {
	inv.mu.RLock()
	defer inv.mu.RUnlock()
	return inv.counts[sku] >= n
}

// warmUp runs the order pickers that check stock before the nightly report.
func warmUp(inv *inventory) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for p := 0; p < 4; p++ {
		wg.Add(1)
		go func(picker int) {
			defer wg.Done()
			for i := 0; i < 15; i++ {
				if inv.pick([]string{"bolt", "nut", "washer"}[(picker+i)%3], 10*i) {
					mu.Lock()
					ok++
					mu.Unlock()
				}
				time.Sleep(20 * time.Microsecond)
			}
		}(p)
	}
	wg.Wait()
	return ok
}

func main() {
	inv := &inventory{counts: map[string]int{"bolt": 120, "nut": 300, "washer": 75}}
	warmUp(inv)
	done := make(chan string, 4)
	go inv.report(done)
	time.Sleep(200 * time.Microsecond)
	go inv.restock("bolt", 40, done)
	go inv.restock("nut", 10, done)

	deadline := time.After(30 * time.Millisecond)
	finished := 0
	for finished < 3 {
		select {
		case <-done:
			finished++
		case <-deadline:
			fmt.Println("inventory jobs stuck:", 3-finished)
			return
		}
	}
	fmt.Println("inventory jobs done")
}
