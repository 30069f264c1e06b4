// Clean (negative control for lock-order inversion): two locks always taken in the
// same order. Transfer locks the two wallets in ascending id order whichever way the
// money moves, so six goroutines moving money both ways contend on the first lock but
// never hold one wallet while waiting for the other in reverse. The test passes on
// every schedule and there is no potential deadlock to report.
package rankedtransfer

import (
	"runtime"
	"sync"
	"testing"
)

// Wallet is a balance under its own lock; id ranks wallets for locking.
type Wallet struct {
	mu      sync.Mutex
	id      int
	balance int
}

// Transfer moves amount between wallets, locking the lower id first.
func Transfer(from, to *Wallet, amount int) bool {
	first, second := from, to
	if second.id < first.id {
		first, second = second, first
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	runtime.Gosched() // a fee lookup happens here
	second.mu.Lock()
	defer second.mu.Unlock()
	if from.balance < amount {
		return false
	}
	from.balance -= amount
	to.balance += amount
	return true
}

func TestTransfersBothWays(t *testing.T) {
	alice := &Wallet{id: 1, balance: 300}
	bob := &Wallet{id: 2, balance: 300}
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for n := 0; n < 20; n++ {
				Transfer(alice, bob, 3)
			}
		}()
		go func() {
			defer wg.Done()
			for n := 0; n < 20; n++ {
				Transfer(bob, alice, 2)
			}
		}()
	}
	wg.Wait()
	if alice.balance+bob.balance != 600 {
		t.Fatalf("money was created or lost: %d", alice.balance+bob.balance)
	}
	if alice.balance != 240 {
		t.Fatalf("alice has %d, want 240", alice.balance)
	}
}
