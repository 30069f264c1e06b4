// Bug class: AB-BA deadlock that hangs on every schedule. copyAll locks the source
// store and then the destination; the test pushes the primary to the mirror and pulls
// the mirror back to the primary at the same time. Both sides check in at a shared
// checkpoint while holding their first lock, so each holds one lock when it asks for
// the other: both block in sync, and the test, waiting for them, hangs. Unlike
// abba/registrywatch (slow work between the locks) the rendezvous makes the hang
// independent of timing.
package mirrorsync

import (
	"sync"
	"testing"
)

// Store is a key-value map under its own lock.
type Store struct {
	mu   sync.Mutex
	data map[string]string
}

// copyAll copies every key of from into to: from's lock, checkpoint, then to's lock.
func copyAll(from, to *Store, checkpoint *sync.WaitGroup) {
	from.mu.Lock()
	defer from.mu.Unlock()
	checkpoint.Done()
	checkpoint.Wait() // both sides have frozen their source before copying
	to.mu.Lock()
	defer to.mu.Unlock()
	for k, v := range from.data {
		to.data[k] = v
	}
}

func TestPushAndPull(t *testing.T) {
	primary := &Store{data: map[string]string{"user:1": "ada"}}
	mirror := &Store{data: map[string]string{"user:2": "grace"}}
	var checkpoint, done sync.WaitGroup
	checkpoint.Add(2)
	done.Add(2)
	go func() {
		defer done.Done()
		copyAll(primary, mirror, &checkpoint)
	}()
	go func() {
		defer done.Done()
		copyAll(mirror, primary, &checkpoint)
	}()
	done.Wait()
	if len(primary.data) != 2 || len(mirror.data) != 2 {
		t.Fatalf("stores differ: %v %v", primary.data, mirror.data)
	}
}
