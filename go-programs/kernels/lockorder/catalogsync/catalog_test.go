// Bug class: lock-order inversion that never hangs (a potential deadlock). Restock
// locks the stock table and then the price list; Reprice locks the price list and
// then the stock table. The repricer starts only after the restocker has released
// both locks (it waits on a channel), so the two orders never overlap and the test
// passes on every schedule. A run still takes the two locks in both orders: the
// cycle a lock-order detector should report, at Reprice's stock lock. Nothing blocks.
package catalogsync

import (
	"sync"
	"testing"
)

// Catalog keeps stock counts and prices, each under its own mutex.
type Catalog struct {
	stockMu sync.Mutex
	stock   map[string]int
	priceMu sync.Mutex
	prices  map[string]int
}

// Restock books a delivery and marks down overstocked items: stock, then prices.
func (c *Catalog) Restock(item string, n int) {
	c.stockMu.Lock()
	defer c.stockMu.Unlock()
	c.stock[item] += n
	if c.stock[item] > 100 {
		c.priceMu.Lock()
		c.prices[item] = c.prices[item] * 9 / 10
		c.priceMu.Unlock()
	}
}

// Reprice sets a price and reports whether the item is in stock: prices, then stock.
func (c *Catalog) Reprice(item string, price int) bool {
	c.priceMu.Lock()
	defer c.priceMu.Unlock()
	c.prices[item] = price
	c.stockMu.Lock() // Bug: the opposite order to Restock
	defer c.stockMu.Unlock()
	return c.stock[item] > 0
}

func TestRestockThenReprice(t *testing.T) {
	c := &Catalog{stock: map[string]int{"lamp": 95}, prices: map[string]int{"lamp": 40}}
	restocked := make(chan struct{})
	inStock := make(chan bool)
	go func() {
		c.Restock("lamp", 10)
		close(restocked)
	}()
	go func() {
		<-restocked // the repricing job runs once the delivery is booked
		inStock <- c.Reprice("lamp", 38)
	}()
	if !<-inStock {
		t.Fatal("lamp should be in stock after the delivery")
	}
}
