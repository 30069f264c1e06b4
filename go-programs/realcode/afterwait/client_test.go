// The test returns while one awaitAck goroutine still waits in its select for an ack
// that is not coming; it would give up by itself a second later.
package afterwait

import (
	"testing"
	"time"
)

func TestSendReturnsAtOnce(t *testing.T) {
	var c Client
	prompt := func(req string, ack chan<- string) { ack <- "ok:" + req }
	silent := func(req string, ack chan<- string) {} // the peer never acknowledges
	start := time.Now()
	c.Send("a", prompt)
	c.Send("b", silent)
	c.Send("c", prompt)
	if elapsed := time.Since(start); elapsed > 500*time.Millisecond {
		t.Fatalf("Send blocked for %v", elapsed)
	}
	deadline := time.Now().Add(time.Second)
	for c.acked.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := c.acked.Load(); got != 2 {
		t.Fatalf("acked = %d, want 2", got)
	}
}
