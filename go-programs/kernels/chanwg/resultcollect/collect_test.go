// Bug class: channel and WaitGroup. CollectSizes waits for all workers before it
// starts reading their results, but each worker blocks sending its result on an
// unbuffered channel and never reaches Done. The test goroutine blocks in
// WaitGroup.Wait (sync), the workers in chan send: the test hangs on every schedule.
package resultcollect

import (
	"sync"
	"testing"
)

type sizeResult struct {
	name  string
	bytes int
}

func measure(name string) int {
	n := 0
	for i := 0; i < 1000; i++ {
		n += len(name) * (i % 7)
	}
	return n
}

// CollectSizes measures every file concurrently.
func CollectSizes(files []string) map[string]int {
	results := make(chan sizeResult)
	var wg sync.WaitGroup
	for _, f := range files {
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			results <- sizeResult{name: name, bytes: measure(name)}
		}(f)
	}
	wg.Wait() // Bug: results is only drained after every worker is done
	close(results)
	sizes := make(map[string]int)
	for r := range results {
		sizes[r.name] = r.bytes
	}
	return sizes
}

func TestCollectSizes(t *testing.T) {
	sizes := CollectSizes([]string{"index.html", "app.js", "style.css", "logo.svg"})
	if len(sizes) != 4 {
		t.Fatalf("got %d sizes", len(sizes))
	}
}
