// Bug class: AB-BA deadlock. Transfer locks the source account and then the
// destination, so two opposite transfers can each hold one lock and wait for the
// other. Shows on some schedules only: when the two loops interleave between the
// two Lock calls, both transfer goroutines block in sync and leak.
package transfer

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// Account is a bank account guarded by its own mutex.
type Account struct {
	mu      sync.Mutex
	id      string
	balance int
}

// Transfer moves amount from one account to another; false means insufficient funds.
func Transfer(from, to *Account, amount int) bool {
	from.mu.Lock()
	defer from.mu.Unlock()
	if from.balance < amount {
		return false
	}
	runtime.Gosched() // the real code writes an audit record here
	to.mu.Lock()
	defer to.mu.Unlock()
	from.balance -= amount
	to.balance += amount
	return true
}

func TestOppositeTransfers(t *testing.T) {
	alice := &Account{id: "alice", balance: 500}
	bob := &Account{id: "bob", balance: 500}
	done := make(chan string, 2)
	go func() {
		for i := 0; i < 30; i++ {
			Transfer(alice, bob, 7)
		}
		done <- "alice->bob"
	}()
	go func() {
		for i := 0; i < 30; i++ {
			Transfer(bob, alice, 5)
		}
		done <- "bob->alice"
	}()
	deadline := time.After(60 * time.Millisecond)
	for finished := 0; finished < 2; finished++ {
		select {
		case name := <-done:
			t.Log(name, "finished")
		case <-deadline:
			t.Log("transfers stalled")
			return
		}
	}
	if alice.balance+bob.balance != 1000 {
		t.Fatalf("money was created or lost: %d", alice.balance+bob.balance)
	}
}
