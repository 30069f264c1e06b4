// Bug class: WaitGroup misuse (Add inside the goroutine). Each shard worker calls
// wg.Add(1) itself, so Wait can return before late workers have added
// themselves; Gather then stops reading and those workers block in chan send. The
// waiter goroutine may block in sync as well. Shows on some schedules only.
package addinside

import (
	"sync"
	"testing"
	"time"
)

// Gather squares every shard id concurrently and returns the results it received.
func Gather(shards int) []int {
	out := make(chan int)
	var wg sync.WaitGroup
	for i := 0; i < shards; i++ {
		go func(i int) {
			wg.Add(1) // Bug: must happen before the go statement
			defer wg.Done()
			out <- i * i
		}(i)
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	var results []int
	for {
		select {
		case v := <-out:
			results = append(results, v)
		case <-done:
			return results
		}
	}
}

func TestGatherAllShards(t *testing.T) {
	got := Gather(6)
	t.Log("gathered", len(got), "of 6 shards")
	time.Sleep(5 * time.Millisecond)
}
