// Bug class: channel and context. Fetch starts a goroutine that sends the response
// on an unbuffered channel and returns early when the context expires; the sender
// then blocks in chan send forever. Shows on some schedules: the origin's latency is
// close to the request timeout, so whether a fetch leaks depends on timing.
package fetchcancel

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestFetchWithDeadline(t *testing.T) {
	o := &Origin{latency: map[string]time.Duration{
		"/a": 3 * time.Millisecond, "/b": 3 * time.Millisecond, "/c": 3 * time.Millisecond,
	}}
	var wg sync.WaitGroup
	for _, p := range []string{"/a", "/b", "/c"} {
		wg.Add(1)
		go func(path string) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 3300*time.Microsecond)
			defer cancel()
			if _, err := Fetch(ctx, o, path); err != nil {
				t.Log(path, err)
			}
		}(p)
	}
	wg.Wait()
	time.Sleep(10 * time.Millisecond)
}
