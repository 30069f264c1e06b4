// Package main keeps per-tenant usage counters. A flusher holds the registry lock
// while handing a snapshot to the exporter over an unbuffered channel; the
// exporter, before receiving, records its own usage, which needs the same lock.
// Flusher waits for the exporter, exporter waits for the lock: the program
// deadlocks (channel & lock) on schedules where the exporter reaches the lock
// first, which with the exporter's per-batch bookkeeping is nearly always.
package main

import (
	"fmt"
	"sync"
	"time"
)

type registry struct {
	mu    sync.Mutex
	usage map[string]int
}

func (r *registry) add(tenant string, n int) {
	r.mu.Lock()
	r.usage[tenant] += n
	r.mu.Unlock()
}

func (r *registry) flush(out chan<- map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	snapshot := make(map[string]int, len(r.usage))
	for k, v := range r.usage {
		snapshot[k] = v
	}
	out <- snapshot // sent while holding the lock
}

func export(r *registry, in <-chan map[string]int, batches int, done chan<- struct{}) {
	for b := 0; b < batches; b++ {
		time.Sleep(100 * time.Microsecond) // open the upload stream
		r.add("exporter", 1)
		snapshot := <-in
		_ = len(snapshot)
	}
	close(done)
}

func main() {
	r := &registry{usage: make(map[string]int)}
	snapshots := make(chan map[string]int)
	done := make(chan struct{})
	go export(r, snapshots, 5, done)
	var tenants sync.WaitGroup
	for t := 0; t < 3; t++ {
		tenants.Add(1)
		go func(name string) {
			defer tenants.Done()
			for i := 0; i < 20; i++ {
				r.add(name, i)
			}
		}(fmt.Sprintf("tenant-%d", t))
	}
	tenants.Wait()
	for b := 0; b < 5; b++ {
		r.flush(snapshots)
	}
	<-done
	fmt.Println("exported")
}
