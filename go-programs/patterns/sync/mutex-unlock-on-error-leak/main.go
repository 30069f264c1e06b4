// Package main applies account updates under a mutex. The validation error path
// returns without unlocking, so every later updater blocks in Lock forever; main
// waits for the batch with a deadline and returns.
package main

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

type accounts struct {
	mu       sync.Mutex
	balances map[string]int
}

var errOverdraft = errors.New("overdraft")

func (a *accounts) withdraw(id string, amount int) error {
	a.mu.Lock()
	if a.balances[id] < amount {
		return errOverdraft // bug: the lock is never released
	}
	a.balances[id] -= amount
	a.mu.Unlock()
	return nil
}

func teller(a *accounts, id string, amounts []int, results chan<- error) {
	for _, amt := range amounts {
		if err := a.withdraw(id, amt); err != nil {
			results <- err
			return
		}
		time.Sleep(50 * time.Microsecond)
	}
	results <- nil
}

func main() {
	a := &accounts{balances: map[string]int{"alice": 500, "bob": 50, "carol": 400, "dave": 300}}
	results := make(chan error, 4)
	go teller(a, "alice", []int{50, 60, 70, 80, 10, 20, 30, 40, 50, 60}, results)
	go teller(a, "bob", []int{40, 40, 40}, results)
	go teller(a, "carol", []int{10, 20, 30, 40, 50, 10, 20, 30, 40, 50}, results)
	go teller(a, "dave", []int{25, 25, 25, 25, 25, 25, 25, 25, 25, 25}, results)

	timeout := time.After(20 * time.Millisecond)
	for i := 0; i < 4; i++ {
		select {
		case err := <-results:
			if err != nil {
				fmt.Println("teller failed:", err)
			}
		case <-timeout:
			fmt.Println("tellers still running")
			return
		}
	}
}
