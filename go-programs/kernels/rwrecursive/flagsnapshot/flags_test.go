// Clean (negative control for recursive read locks): an RWMutex read-locked once per
// call, with concurrent writers. Enabled and Snapshot each take the read lock exactly
// once; Snapshot reads the map itself instead of calling Enabled, so no goroutine
// holds a read lock while asking for another. Three readers and two writers run
// together: writers queue and readers wait behind them, but every wait ends. The test
// passes on every schedule and there is no recursive read lock to report.
package flagsnapshot

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// Flags are feature switches read on every request and flipped by operators.
type Flags struct {
	mu sync.RWMutex
	on map[string]bool
}

// Enabled reports one flag.
func (f *Flags) Enabled(name string) bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.on[name]
}

// Snapshot copies the enabled flags under a single read lock.
func (f *Flags) Snapshot() []string {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var names []string
	for name, on := range f.on {
		if on {
			names = append(names, name)
		}
	}
	return names
}

// Set flips a flag.
func (f *Flags) Set(name string, on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.on[name] = on
}

func TestReadersAndOperators(t *testing.T) {
	f := &Flags{on: map[string]bool{"dark-mode": true, "beta-search": false}}
	var wg sync.WaitGroup
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				f.Enabled("beta-search")
				f.Snapshot()
				runtime.Gosched()
			}
		}()
	}
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				f.Set(fmt.Sprint("rollout-", w), i%2 == 0)
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
	if !f.Enabled("dark-mode") || f.Enabled("rollout-0") {
		t.Fatalf("flags after the rollouts: %v", f.Snapshot())
	}
}
