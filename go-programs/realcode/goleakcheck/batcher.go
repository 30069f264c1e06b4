// A batcher that groups submitted items and flushes them from one background goroutine,
// stopped by Close: the package's own goroutines all end, which its tests verify.
package goleakcheck

import "sync"

// Batcher collects items into batches of size and hands each batch to flush.
type Batcher struct {
	items chan string
	done  sync.WaitGroup
}

// NewBatcher starts the flushing goroutine.
func NewBatcher(size int, flush func([]string)) *Batcher {
	b := &Batcher{items: make(chan string)}
	b.done.Add(1)
	go b.run(size, flush)
	return b
}

func (b *Batcher) run(size int, flush func([]string)) {
	defer b.done.Done()
	var batch []string
	for item := range b.items {
		batch = append(batch, item)
		if len(batch) == size {
			flush(batch)
			batch = nil
		}
	}
	if len(batch) > 0 {
		flush(batch)
	}
}

// Add queues one item.
func (b *Batcher) Add(item string) { b.items <- item }

// Close flushes what is left and waits for the flushing goroutine to end.
func (b *Batcher) Close() {
	close(b.items)
	b.done.Wait()
}
