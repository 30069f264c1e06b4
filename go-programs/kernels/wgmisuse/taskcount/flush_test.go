// Bug class: WaitGroup misuse (Add counts tasks, but a single worker does them all).
// Flush adds one to the WaitGroup per pending batch, then starts one uploader that
// sends every batch and calls Done once before it returns. With two batches the
// counter stays at one with no goroutine left to decrement it, so the goroutine that
// closes the flushed channel after Wait blocks in sync for ever. The test gives up
// after its timeout and returns: the waiter leaks on every schedule. (The hanging
// form of this class, where the test itself waits, is wgmisuse/addcount.)
package taskcount

import (
	"sync"
	"testing"
	"time"
)

// Buffer holds log lines in batches until they are flushed.
type Buffer struct {
	mu      sync.Mutex
	batches [][]string
	sent    int
}

// Flush uploads every pending batch in the background; the channel closes when all are sent.
func (b *Buffer) Flush() <-chan struct{} {
	var wg sync.WaitGroup
	wg.Add(len(b.batches)) // Bug: one per batch, but the single uploader calls Done once
	go func() {
		defer wg.Done()
		for _, batch := range b.batches {
			b.mu.Lock()
			b.sent += len(batch)
			b.mu.Unlock()
		}
	}()
	flushed := make(chan struct{})
	go func() {
		wg.Wait()
		close(flushed)
	}()
	return flushed
}

func TestFlushTwoBatches(t *testing.T) {
	b := &Buffer{batches: [][]string{{"GET /", "GET /about"}, {"POST /login"}}}
	select {
	case <-b.Flush():
		t.Log("flushed")
	case <-time.After(10 * time.Millisecond):
		t.Log("flush never reported completion")
	}
}
