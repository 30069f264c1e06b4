// Package main finds the first matching log records through a two-stage pipeline
// (scan → filter). The consumer stops after it has enough matches and returns,
// but the stages have no cancellation, so the filter blocks sending its next
// match and the scanner blocks sending its next line, forever.
package main

import (
	"fmt"
	"strings"
)

func scan(n int) <-chan string {
	out := make(chan string)
	go func() {
		for i := 0; i < n; i++ {
			level := []string{"INFO", "WARN", "ERROR"}[i%3]
			out <- fmt.Sprintf("%s request=%d latency=%dms", level, i, (i*37)%500)
		}
		close(out)
	}()
	return out
}

func filter(in <-chan string, level string) <-chan string {
	out := make(chan string)
	go func() {
		for line := range in {
			if strings.HasPrefix(line, level) {
				out <- line
			}
		}
		close(out)
	}()
	return out
}

func firstN(in <-chan string, n int) []string {
	var got []string
	for line := range in {
		got = append(got, line)
		if len(got) == n {
			return got // bug: upstream stages are left blocked
		}
	}
	return got
}

func main() {
	errorsSeen := firstN(filter(scan(300), "ERROR"), 25)
	fmt.Println("first errors", len(errorsSeen))
}
