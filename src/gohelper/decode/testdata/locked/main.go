// Two goroutines contend for one mutex, built with the lock-recording overlay so the trace
// carries its lock logs. Line numbers are asserted by decode_trace_test.go.
package main

import (
	"os"
	"runtime/trace"
	"sync"
	"time"
)

var mu sync.Mutex

func holder(held, done chan struct{}) {
	mu.Lock()
	close(held)
	time.Sleep(20 * time.Millisecond) // main blocks in mu.Lock meanwhile
	mu.Unlock()
	close(done)
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	held, done := make(chan struct{}), make(chan struct{})
	go holder(held, done)
	<-held
	mu.Lock()
	mu.Unlock()
	<-done
	trace.Stop()
	f.Close()
}
