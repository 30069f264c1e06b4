// An audit logger that fires notifications off in goroutines and never waits for them:
// for each event a collector is started, then the emitter that will feed it, and main
// returns right after the last pair. At exit the last collectors are usually parked on
// their receive while their emitter is runnable or not yet started.
package main

import (
	"fmt"
	"sync/atomic"
)

var delivered atomic.Int64

func collect(events <-chan string) {
	if e := <-events; e != "" {
		delivered.Add(1)
	}
}

func emit(events chan<- string, name string) {
	events <- name
}

func main() {
	names := []string{"login", "upload", "share", "logout"}
	for _, name := range names {
		events := make(chan string)
		go collect(events)
		go emit(events, name) // created last: the collector's only waker
	}
	fmt.Println("queued", len(names), "audit events")
}
