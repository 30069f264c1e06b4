// Bug class: recursive RWMutex read lock with a waiting writer. Resolve follows
// aliases by calling itself while it holds a read lock; a background refresher
// takes the write lock every millisecond. Once the refresher queues between the
// outer and the inner RLock, the test goroutine and the refresher both block in
// sync, and the test hangs. Each hop does a slow health probe, so this happens on
// every schedule.
package routetable

import (
	"sync"
	"testing"
	"time"
)

// Table maps route names to backends or to other route names (aliases).
type Table struct {
	mu      sync.RWMutex
	routes  map[string]string
	aliases map[string]string
	version int
}

// Resolve returns the backend for name, following aliases.
func (t *Table) Resolve(name string) string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if target, ok := t.aliases[name]; ok {
		time.Sleep(2 * time.Millisecond) // probe the alias target's health
		// Bug: recursive RLock while a writer may be waiting.
		return t.Resolve(target)
	}
	return t.routes[name]
}

// Refresh installs a new version of the routes.
func (t *Table) Refresh(routes map[string]string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.routes = routes
	t.version++
}

func TestResolveAliasDuringRefresh(t *testing.T) {
	tbl := &Table{
		routes:  map[string]string{"payments": "10.1.0.4:443"},
		aliases: map[string]string{"pay": "payments", "billing": "pay"},
	}
	go func() {
		ticker := time.NewTicker(time.Millisecond)
		defer ticker.Stop()
		for range ticker.C {
			tbl.Refresh(map[string]string{"payments": "10.1.0.5:443"})
		}
	}()
	for i := 0; i < 50; i++ {
		if got := tbl.Resolve("billing"); got == "" {
			t.Fatalf("no backend for billing")
		}
	}
}
