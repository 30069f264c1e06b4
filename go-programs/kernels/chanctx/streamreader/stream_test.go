// Bug class: channel and context. The producer stops on context cancellation but
// never closes its output channel, so the consumer ranging over it blocks in
// chan receive forever and leaks on every schedule.
package streamreader

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// Record is one row of a change stream.
type Record struct {
	Seq  int
	Body string
}

// Produce emits records until ctx is cancelled.
func Produce(ctx context.Context, out chan<- Record) {
	for seq := 0; ; seq++ {
		select {
		case out <- Record{Seq: seq, Body: "row"}:
		case <-ctx.Done():
			return // Bug: out is never closed
		}
	}
}

// Index consumes records until the stream ends.
func Index(in <-chan Record, indexed *atomic.Int64) {
	for r := range in {
		if r.Seq%100 == 0 {
			time.Sleep(100 * time.Microsecond) // compact the index
		}
		indexed.Add(1)
	}
}

func TestStreamStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	records := make(chan Record)
	var indexed atomic.Int64
	go Produce(ctx, records)
	go Index(records, &indexed)
	<-ctx.Done()
	time.Sleep(10 * time.Millisecond)
	t.Log("indexed", indexed.Load(), "records")
}
