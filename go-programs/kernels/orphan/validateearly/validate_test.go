// Bug class: send left without a partner after an early return. ValidateOrder runs
// one validator goroutine per rule and returns at the first failure; the validators
// that finish later block in chan send on the unbuffered channel. The failing rule
// is the fastest, so the others leak on every schedule.
package validateearly

import (
	"fmt"
	"testing"
	"time"
)

// Order is a customer order.
type Order struct {
	ID       string
	Items    int
	Total    int
	Country  string
	Customer string
}

type rule struct {
	name  string
	cost  time.Duration
	check func(Order) error
}

var rules = []rule{
	{"items", 0, func(o Order) error {
		if o.Items == 0 {
			return fmt.Errorf("order %s has no items", o.ID)
		}
		return nil
	}},
	{"fraud", 3 * time.Millisecond, func(o Order) error { return nil }},
	{"shipping", 2 * time.Millisecond, func(o Order) error { return nil }},
	{"credit", 2 * time.Millisecond, func(o Order) error { return nil }},
}

// ValidateOrder checks every rule concurrently.
func ValidateOrder(o Order) error {
	results := make(chan error)
	for _, r := range rules {
		go func(r rule) {
			time.Sleep(r.cost)
			results <- r.check(o)
		}(r)
	}
	for range rules {
		if err := <-results; err != nil {
			return err // Bug: the remaining validators can no longer send
		}
	}
	return nil
}

func TestEmptyOrderRejected(t *testing.T) {
	err := ValidateOrder(Order{ID: "A-1001", Country: "NL", Customer: "c-77"})
	if err == nil {
		t.Fatal("an empty order passed validation")
	}
	time.Sleep(10 * time.Millisecond)
}
