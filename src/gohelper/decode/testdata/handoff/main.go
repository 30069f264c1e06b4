// A handoff the decoder tests trace: main starts a worker that blocks receiving, wakes it
// with a send, and waits for it to yield and finish. Line numbers are asserted by
// decode_trace_test.go: edit them together.
package main

import (
	"os"
	"runtime"
	"runtime/trace"
	"time"
)

func worker(ch chan int, done chan struct{}) {
	<-ch
	runtime.Gosched()
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
	ch := make(chan int)
	done := make(chan struct{})
	go worker(ch, done)
	time.Sleep(20 * time.Millisecond) // the worker is parked in <-ch by now
	ch <- 1
	<-done
	trace.Stop()
	f.Close()
}
