// Package main runs long batch tasks that cooperate with the Go scheduler: every
// few hundred iterations they call runtime.Gosched so short interactive tasks,
// which communicate over channels, get the CPU in between.
package main

import (
	"fmt"
	"runtime"
	"sync"
)

func batch(id int, items int, sums []uint64, wg *sync.WaitGroup) {
	defer wg.Done()
	var acc uint64 = uint64(id) + 1
	for i := 0; i < items; i++ {
		acc = acc*6364136223846793005 + 1442695040888963407
		if i%2000 == 0 {
			runtime.Gosched() // be nice to interactive work
		}
	}
	sums[id] = acc
}

func interactive(requests <-chan int, replies chan<- int, wg *sync.WaitGroup) {
	defer wg.Done()
	for r := range requests {
		replies <- r * 2
	}
}

func main() {
	sums := make([]uint64, 3)
	var batches, servers sync.WaitGroup
	for b := 0; b < 3; b++ {
		batches.Add(1)
		go batch(b, 60000, sums, &batches)
	}
	requests := make(chan int)
	replies := make(chan int)
	servers.Add(2)
	go interactive(requests, replies, &servers)
	go interactive(requests, replies, &servers)
	total := 0
	for i := 0; i < 40; i++ {
		requests <- i
		total += <-replies
	}
	close(requests)
	servers.Wait()
	batches.Wait()
	fmt.Println("interactive total", total)
}
