package successors

import (
	"testing"
	"time"
)

func TestChainOfTwoThousand(t *testing.T) {
	c := Start(2000)
	<-c.Reached()
	time.Sleep(20 * time.Millisecond) // let stragglers settle before checking
	if got := c.done.Load(); got != 2000 {
		t.Fatalf("steps done = %d, want 2000", got)
	}
}
