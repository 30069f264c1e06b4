// Clean (negative control for lock-order inversion): two locks taken in both orders,
// always under a common gate lock. Move locks the source shard and then the
// destination, so moves in opposite directions take the two shard locks in opposite
// orders; but every move holds the directory's move lock around both, so no two moves
// overlap and the opposite orders can never interleave. Eight movers run, four each
// way; they contend on the gate and the test passes on every schedule. There is no
// potential deadlock to report.
package gatedmove

import (
	"fmt"
	"sync"
	"testing"
)

// Shard holds some items and their sizes under its own lock.
type Shard struct {
	mu    sync.Mutex
	items map[string]int
}

// Len counts the shard's items; one lock, no gate needed.
func (s *Shard) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items)
}

// Directory moves items between shards, one move at a time.
type Directory struct {
	moveMu sync.Mutex
}

// Move takes item from one shard to the other: gate, then source, then destination.
func (d *Directory) Move(item string, from, to *Shard) bool {
	d.moveMu.Lock()
	defer d.moveMu.Unlock()
	from.mu.Lock()
	defer from.mu.Unlock()
	size, ok := from.items[item]
	if !ok {
		return false
	}
	to.mu.Lock()
	defer to.mu.Unlock()
	delete(from.items, item)
	to.items[item] = size
	return true
}

func TestMovesBothWays(t *testing.T) {
	west := &Shard{items: map[string]int{}}
	east := &Shard{items: map[string]int{}}
	for i := 0; i < 4; i++ {
		west.items[fmt.Sprint("w", i)] = i
		east.items[fmt.Sprint("e", i)] = i
	}
	d := &Directory{}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			d.Move(fmt.Sprint("w", i), west, east)
		}()
		go func() {
			defer wg.Done()
			d.Move(fmt.Sprint("e", i), east, west)
		}()
	}
	wg.Wait()
	if west.Len() != 4 || east.Len() != 4 {
		t.Fatalf("after swapping every item: west %d, east %d", west.Len(), east.Len())
	}
	if _, ok := west.items["e3"]; !ok {
		t.Fatal("e3 did not move west")
	}
}
