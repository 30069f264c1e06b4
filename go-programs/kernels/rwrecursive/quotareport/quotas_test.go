// Bug class: recursive RWMutex read lock that never hangs (a potential deadlock).
// Report read-locks the quota table and calls Remaining, which read-locks it again.
// A writer whose Lock queued between the two RLocks would block both for ever (see
// rwrecursive/configreload); here the writer waits on a channel until Report has
// released both read locks, so the test passes on every schedule. The nested RLock
// in Remaining is the potential deadlock a detector should report. Nothing blocks.
package quotareport

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Quotas tracks each tenant's limit and usage.
type Quotas struct {
	mu    sync.RWMutex
	limit map[string]int
	used  map[string]int
}

// Remaining returns how much of its quota a tenant has left.
func (q *Quotas) Remaining(tenant string) int {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return q.limit[tenant] - q.used[tenant]
}

// Report renders every tenant's remaining quota for the billing page.
func (q *Quotas) Report(tenants []string) string {
	q.mu.RLock()
	defer q.mu.RUnlock()
	var b strings.Builder
	for _, t := range tenants {
		// Bug: Remaining read-locks q.mu again while this call holds a read lock.
		fmt.Fprintf(&b, "%s %d/%d\n", t, q.Remaining(t), q.limit[t])
	}
	return b.String()
}

// SetLimit changes a tenant's limit.
func (q *Quotas) SetLimit(tenant string, n int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.limit[tenant] = n
}

func TestReportThenRaiseLimit(t *testing.T) {
	q := &Quotas{
		limit: map[string]int{"acme": 100, "globex": 50},
		used:  map[string]int{"acme": 60, "globex": 10},
	}
	reported := make(chan struct{})
	raised := make(chan struct{})
	go func() {
		<-reported // the upgrade is applied after the page is rendered
		q.SetLimit("acme", 200)
		close(raised)
	}()
	page := q.Report([]string{"acme", "globex"})
	close(reported)
	<-raised
	if !strings.Contains(page, "acme 40/100") {
		t.Fatalf("billing page:\n%s", page)
	}
	if q.Remaining("acme") != 140 {
		t.Fatalf("acme has %d left after the upgrade, want 140", q.Remaining("acme"))
	}
}
