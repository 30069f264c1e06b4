// Package main merges two sorted change feeds. When one feed closes, its channel
// variable is set to nil so the select stops considering it (a nil channel never
// becomes ready) while the other feed keeps flowing.
package main

import "fmt"

type change struct {
	version int
	key     string
}

func feed(name string, start, step, n int) <-chan change {
	out := make(chan change)
	go func() {
		defer close(out)
		for i := 0; i < n; i++ {
			out <- change{version: start + i*step, key: fmt.Sprintf("%s/%d", name, i)}
		}
	}()
	return out
}

func merge(a, b <-chan change) []change {
	var merged []change
	for a != nil || b != nil {
		select {
		case c, ok := <-a:
			if !ok {
				a = nil
				continue
			}
			merged = append(merged, c)
		case c, ok := <-b:
			if !ok {
				b = nil
				continue
			}
			merged = append(merged, c)
		}
	}
	return merged
}

func main() {
	users := feed("users", 1, 2, 30)
	orders := feed("orders", 2, 3, 45)
	all := merge(users, orders)
	fmt.Println("changes", len(all))
}
