// TestSessionCleanup registers a cleanup that runs when the current session ends and
// returns at once: the cleanup goroutine waits for a cancel the session manager will make.
package liveowner

import (
	"sync/atomic"
	"testing"
)

var cleanups atomic.Int64

func TestSessionCleanup(t *testing.T) {
	ctx := Session()
	go func() {
		<-ctx.Done() // released when the manager expires the session, 3 s after init
		cleanups.Add(1)
	}()
	if err := ctx.Err(); err != nil {
		t.Fatalf("fresh session already ended: %v", err)
	}
}
