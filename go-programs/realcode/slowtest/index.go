// A document indexer whose workers simulate slow storage with sleeps: a legitimately
// slow test, not a hung one.
package slowtest

import (
	"strings"
	"sync"
	"time"
)

// Index builds a word count of docs with the given number of workers; each document
// costs one storage round trip of latency.
func Index(docs []string, workers int, latency time.Duration) map[string]int {
	jobs := make(chan string)
	counts := make(chan map[string]int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[string]int{}
			for doc := range jobs {
				time.Sleep(latency) // fetch the document from storage
				for _, word := range strings.Fields(doc) {
					local[word]++
				}
			}
			counts <- local
		}()
	}
	go func() {
		for _, d := range docs {
			jobs <- d
		}
		close(jobs)
	}()
	go func() {
		wg.Wait()
		close(counts)
	}()
	total := map[string]int{}
	for local := range counts {
		for word, n := range local {
			total[word] += n
		}
	}
	return total
}
