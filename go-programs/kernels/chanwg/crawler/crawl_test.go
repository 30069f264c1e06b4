// Bug class: channel and WaitGroup. Crawl stops collecting pages at its deadline,
// but fetchers still send on the unbuffered pages channel and the closer still
// waits for them. Shows on some schedules: page latencies straddle the deadline,
// so whether fetchers block in chan send (and the closer in sync) depends on timing.
package crawler

import (
	"sync"
	"testing"
	"time"
)

// Page is a fetched document.
type Page struct {
	URL   string
	Links int
}

func fetch(url string) Page {
	time.Sleep(time.Duration(len(url)%3+2) * time.Millisecond)
	return Page{URL: url, Links: len(url) % 5}
}

// Crawl fetches seeds concurrently and returns what arrived before the deadline.
func Crawl(seeds []string, deadline time.Duration) []Page {
	pages := make(chan Page)
	var wg sync.WaitGroup
	for _, s := range seeds {
		wg.Add(1)
		go func(url string) {
			defer wg.Done()
			pages <- fetch(url)
		}(s)
	}
	go func() {
		wg.Wait()
		close(pages)
	}()
	timeout := time.After(deadline)
	var got []Page
	for {
		select {
		case p, ok := <-pages:
			if !ok {
				return got
			}
			got = append(got, p)
		case <-timeout:
			return got // Bug: fetchers still sending are abandoned
		}
	}
}

func TestCrawlDeadline(t *testing.T) {
	seeds := []string{"a.example/", "bb.example/", "ccc.example/", "dd.example/x", "e.example/yy"}
	pages := Crawl(seeds, 4500*time.Microsecond)
	t.Log("crawled", len(pages), "of", len(seeds))
	time.Sleep(10 * time.Millisecond)
}
