// Bug class: a channel wait-for cycle of three goroutines. Three shards take turns
// compacting: each waits for the turn token from its neighbour, compacts, and hands
// the token on (a waits for b, b for c, c for a). Every shard runs the same code, so
// none starts the round: all three block in chan receive for ever, each waiting for a
// goroutine that is itself waiting. The test gives up after its timeout and returns;
// the three shards leak on every schedule.
package compactionring

import (
	"testing"
	"time"
)

// shard is one compaction worker in the ring.
type shard struct {
	name  string
	round int
}

// take waits for the token, compacts, and passes the token to the next shard.
func (s *shard) take(turn <-chan int, next chan<- int) {
	round := <-turn // Bug: no shard sends first
	s.round = round
	next <- round + 1
}

func TestCompactionRing(t *testing.T) {
	a, b, c := &shard{name: "a"}, &shard{name: "b"}, &shard{name: "c"}
	bToA, cToB, aToC := make(chan int), make(chan int), make(chan int)
	compacted := make(chan string, 3)
	go func() {
		a.take(bToA, aToC)
		compacted <- a.name
	}()
	go func() {
		b.take(cToB, bToA)
		compacted <- b.name
	}()
	go func() {
		c.take(aToC, cToB)
		compacted <- c.name
	}()
	select {
	case name := <-compacted:
		t.Log(name, "compacted")
	case <-time.After(10 * time.Millisecond):
		t.Log("compaction ring never started")
	}
}
