// Bug class: double locking in a background goroutine. Pool.shutdown holds the pool
// lock and calls drain, which locks again; the shutdown goroutine blocks in sync
// forever and leaks once the test returns, on every schedule.
package poolclose

import (
	"sync"
	"testing"
	"time"
)

func TestPoolClose(t *testing.T) {
	p := NewPool()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				c := p.Acquire()
				p.Release(c)
			}
		}()
	}
	wg.Wait()
	p.CloseAsync()
	time.Sleep(20 * time.Millisecond)
	t.Log("pool closing in the background")
}
