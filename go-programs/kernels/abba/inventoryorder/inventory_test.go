// Bug class: AB-BA deadlock. Reserve locks the stock table and then the ledger;
// the nightly Audit locks the ledger and then the stock table. Shows on some
// schedules: when a reservation and the audit interleave between their two locks,
// both block in sync and leak after the test gives up waiting.
package inventoryorder

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// Warehouse keeps item counts and a ledger of movements.
type Warehouse struct {
	stockMu  sync.Mutex
	stock    map[string]int
	ledgerMu sync.Mutex
	ledger   []string
}

// Reserve takes n units of an item and writes a ledger line: stock, then ledger.
func (w *Warehouse) Reserve(item string, n int) bool {
	w.stockMu.Lock()
	defer w.stockMu.Unlock()
	if w.stock[item] < n {
		return false
	}
	w.stock[item] -= n
	runtime.Gosched()
	w.ledgerMu.Lock()
	w.ledger = append(w.ledger, "reserve "+item)
	w.ledgerMu.Unlock()
	return true
}

// Audit checks the ledger against stock: ledger, then stock.
func (w *Warehouse) Audit() int {
	w.ledgerMu.Lock()
	defer w.ledgerMu.Unlock()
	entries := len(w.ledger)
	runtime.Gosched()
	w.stockMu.Lock()
	total := 0
	for _, n := range w.stock {
		total += n
	}
	w.stockMu.Unlock()
	return total + entries
}

func TestReserveDuringAudit(t *testing.T) {
	w := &Warehouse{stock: map[string]int{"bolt": 400, "nut": 400}}
	var wg sync.WaitGroup
	for _, item := range []string{"bolt", "nut"} {
		wg.Add(1)
		go func(item string) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				w.Reserve(item, 1)
			}
		}(item)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			w.Audit()
		}
	}()
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(60 * time.Millisecond):
		t.Log("warehouse stalled")
	}
}
