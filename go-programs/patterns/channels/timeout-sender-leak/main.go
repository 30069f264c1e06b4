// Package main asks a slow price backend for quotes with a per-call timeout.
// The backend goroutine replies on an unbuffered channel; once the caller has
// timed out nobody receives, so each late backend goroutine blocks in its send forever.
package main

import (
	"errors"
	"fmt"
	"time"
)

var errTimeout = errors.New("quote timed out")

type quote struct {
	symbol string
	cents  int
}

func slowBackend(symbol string, delay time.Duration) int {
	time.Sleep(delay)
	sum := 0
	for _, r := range symbol {
		sum = sum*31 + int(r)
	}
	return sum % 10000
}

func fetchQuote(symbol string, delay, timeout time.Duration) (quote, error) {
	reply := make(chan quote)
	go func() {
		reply <- quote{symbol: symbol, cents: slowBackend(symbol, delay)}
	}()
	select {
	case q := <-reply:
		return q, nil
	case <-time.After(timeout):
		return quote{}, errTimeout
	}
}

func main() {
	symbols := []string{"ACME", "GLOBX", "INIT", "ZETA", "OMNI", "KORP", "VEGA", "NOVA", "LUMA", "ORBI", "TRIX", "QUAD"}
	ok, late := 0, 0
	for i, s := range symbols {
		delay := time.Duration(1+i%2*9) * time.Millisecond // odd symbols are slow
		if _, err := fetchQuote(s, delay, 5*time.Millisecond); err != nil {
			late++
			continue
		}
		ok++
	}
	time.Sleep(12 * time.Millisecond)
	fmt.Println("quotes", ok, "timeouts", late)
}
