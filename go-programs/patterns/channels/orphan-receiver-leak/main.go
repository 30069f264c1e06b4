// Package main streams log lines from a parser to an indexer. The parser returns
// early on a malformed line and forgets to close the stream, so the indexer,
// ranging over the channel, waits for a next line that never comes.
package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

type entry struct {
	level string
	msg   string
}

func parse(lines []string, out chan<- entry) error {
	for _, l := range lines {
		level, msg, ok := strings.Cut(l, ": ")
		if !ok {
			return errors.New("malformed line: " + l)
		}
		out <- entry{level: level, msg: msg}
	}
	close(out)
	return nil
}

type index struct {
	mu      sync.Mutex
	byLevel map[string]int
}

func (ix *index) consume(in <-chan entry) {
	for e := range in {
		ix.mu.Lock()
		ix.byLevel[e.level]++
		ix.mu.Unlock()
	}
}

func main() {
	levels := []string{"INFO", "WARN", "DEBUG", "ERROR"}
	var batches [][]string
	for b := 0; b < 5; b++ {
		var lines []string
		for i := 0; i < 12; i++ {
			lines = append(lines, fmt.Sprintf("%s: request %d/%d served", levels[(b+i)%4], b, i))
		}
		if b == 2 {
			lines[7] = "truncated write without level"
		}
		batches = append(batches, lines)
	}
	ix := &index{byLevel: make(map[string]int)}
	failed := 0
	for _, b := range batches {
		stream := make(chan entry)
		go ix.consume(stream)
		if err := parse(b, stream); err != nil {
			failed++
		}
	}
	ix.mu.Lock()
	fmt.Println("levels", len(ix.byLevel), "failed batches", failed)
	ix.mu.Unlock()
}
