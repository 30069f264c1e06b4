// A fetcher whose result goroutine is orphaned when the caller's context expires.
package fetchcancel

import (
	"context"
	"time"
)

// Origin simulates a backend with a fixed latency per path.
type Origin struct {
	latency map[string]time.Duration
}

func (o *Origin) get(path string) string {
	time.Sleep(o.latency[path])
	return "body of " + path
}

// Fetch returns the body of path or the context's error, whichever comes first.
func Fetch(ctx context.Context, o *Origin, path string) (string, error) {
	result := make(chan string) // Bug: unbuffered, nobody reads it after ctx is done
	go func() {
		result <- o.get(path)
	}()
	select {
	case body := <-result:
		return body, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
