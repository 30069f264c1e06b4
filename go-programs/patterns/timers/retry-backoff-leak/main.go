// Package main delivers webhooks with exponential backoff. A delivery whose
// endpoint keeps failing doubles its sleep each attempt; main finishes the batch
// with a short overall wait and returns, leaving those goroutines asleep in their
// backoff (and, in a long-running service, retrying forever).
package main

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

type webhook struct {
	url     string
	payload string
}

func post(w webhook, attempt int) error {
	if strings.Contains(w.url, "down") {
		return fmt.Errorf("%s: 503 on attempt %d", w.url, attempt)
	}
	return nil
}

func deliver(w webhook, delivered *atomic.Int32) {
	backoff := 100 * time.Microsecond
	for attempt := 1; ; attempt++ {
		if err := post(w, attempt); err == nil {
			delivered.Add(1)
			return
		}
		time.Sleep(backoff)
		backoff *= 2 // bug: no cap on attempts, no cancellation
	}
}

func main() {
	hooks := []webhook{
		{url: "https://a.example/hook"}, {url: "https://down.b.example/hook"},
		{url: "https://c.example/hook"}, {url: "https://d.example/hook"},
		{url: "https://down.e.example/hook"}, {url: "https://f.example/hook"},
	}
	var delivered atomic.Int32
	for _, h := range hooks {
		h.payload = `{"event":"order.paid"}`
		go deliver(h, &delivered)
	}
	time.Sleep(15 * time.Millisecond)
	fmt.Println("delivered", delivered.Load(), "of", len(hooks))
}
