// Package main splits a password-hash audit over more CPU-bound goroutines than
// there are Ps. Each goroutine runs tens of milliseconds without blocking, so the
// runtime must preempt them to share the two Ps; the results come back over a channel.
package main

import (
	"crypto/sha256"
	"fmt"
)

type audit struct {
	user   string
	rounds int
	weak   bool
}

func stretch(password string, rounds int) [32]byte {
	sum := sha256.Sum256([]byte(password))
	for i := 0; i < rounds; i++ {
		sum = sha256.Sum256(sum[:])
	}
	return sum
}

func check(user, password string, rounds int, out chan<- audit) {
	sum := stretch(password, rounds)
	out <- audit{user: user, rounds: rounds, weak: sum[0] < 16}
}

func main() {
	users := map[string]string{"root": "hunter2", "ci": "ci-token-2024", "ana": "correct horse", "bo": "letmein"}
	out := make(chan audit)
	for user, pw := range users {
		go check(user, pw, 200000, out)
	}
	weak := 0
	for range users {
		if a := <-out; a.weak {
			weak++
		}
	}
	fmt.Println("weak", weak)
}
