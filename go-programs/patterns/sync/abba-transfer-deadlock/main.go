// Package main transfers money between wallets, locking the source wallet and then
// the destination. Two opposite transfers (A→B while B→A) can each hold one lock
// and wait for the other: a lock-order (AB-BA) deadlock that only some schedules
// hit. When it happens, main blocks in Wait too and the whole program hangs.
package main

import (
	"fmt"
	"sync"
	"time"
)

type wallet struct {
	mu      sync.Mutex
	name    string
	balance int
}

func transfer(from, to *wallet, amount int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	time.Sleep(5 * time.Microsecond) // fraud check between the two locks
	to.mu.Lock()
	defer to.mu.Unlock()
	from.balance -= amount
	to.balance += amount
}

func main() {
	a := &wallet{name: "alice", balance: 1000}
	b := &wallet{name: "bob", balance: 1000}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < 40; i++ {
			transfer(a, b, 3)
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 40; i++ {
			transfer(b, a, 2)
		}
	}()
	wg.Wait()
	fmt.Println("balances", a.balance, b.balance)
}
