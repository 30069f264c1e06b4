// TestDashboardShowsStatus starts a dashboard goroutine that renders every status event
// for as long as the process lives; it is parked on the feed, woken at every publish.
package globalsender

import (
	"strings"
	"sync"
	"testing"
)

func TestDashboardShowsStatus(t *testing.T) {
	var mu sync.Mutex
	var latest string
	shown := make(chan struct{})
	var first sync.Once
	go func() {
		for ev := range Events() {
			mu.Lock()
			latest = ev
			mu.Unlock()
			first.Do(func() { close(shown) })
		}
	}()
	<-shown
	mu.Lock()
	defer mu.Unlock()
	if !strings.HasSuffix(latest, ": ok") {
		t.Fatalf("latest status = %q", latest)
	}
}
