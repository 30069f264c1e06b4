// Parallel tests of a sharded counter; each test sleeps a little to stand for I/O.
// With -test.count=20 the repetitions add up and a short deadline cuts the run while
// most tests wait in t.Parallel for a free slot.
package parallelcount

import (
	"sync"
	"testing"
	"time"
)

type shardedCounter struct {
	shards [4]struct {
		mu sync.Mutex
		n  int
	}
}

func (c *shardedCounter) add(key, n int) {
	s := &c.shards[key%len(c.shards)]
	s.mu.Lock()
	s.n += n
	s.mu.Unlock()
}

func (c *shardedCounter) total() int {
	sum := 0
	for i := range c.shards {
		c.shards[i].mu.Lock()
		sum += c.shards[i].n
		c.shards[i].mu.Unlock()
	}
	return sum
}

func exercise(t *testing.T, writers, perWriter int) {
	t.Parallel()
	var c shardedCounter
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				c.add(w+i, 1)
			}
		}(w)
	}
	wg.Wait()
	time.Sleep(12 * time.Millisecond) // a flush to disk
	if got := c.total(); got != writers*perWriter {
		t.Fatalf("total = %d, want %d", got, writers*perWriter)
	}
}

func TestShardsTwoWriters(t *testing.T)   { exercise(t, 2, 50) }
func TestShardsFourWriters(t *testing.T)  { exercise(t, 4, 50) }
func TestShardsEightWriters(t *testing.T) { exercise(t, 8, 25) }
func TestShardsManyWriters(t *testing.T)  { exercise(t, 16, 10) }
func TestShardsOneWriter(t *testing.T)    { exercise(t, 1, 100) }
func TestShardsThreeWriters(t *testing.T) { exercise(t, 3, 30) }
