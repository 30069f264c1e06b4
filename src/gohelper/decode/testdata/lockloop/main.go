// A mutex taken in a loop more often than the lock-recording budget, built with the
// overlay of a -race build (no budget: every operation is logged), then held by main while
// a goroutine blocks taking it at the loop's statement. Line numbers are asserted by
// trace_test.go (checkLockLoop).
package main

import (
	"os"
	"runtime/trace"
	"sync"
	"time"
)

func take(mu *sync.Mutex) {
	mu.Lock()
	mu.Unlock()
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	var mu sync.Mutex
	for i := 0; i < 100; i++ {
		take(&mu)
	}
	mu.Lock()
	go take(&mu) // blocks: main never unlocks
	time.Sleep(20 * time.Millisecond)
	trace.Stop()
	f.Close()
}
