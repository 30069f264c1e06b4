// Package main scatters a search query to index shards, each in its own goroutine,
// and gathers the hits under a mutex once the WaitGroup drains. Shard completion
// order, and so the order hits are appended, differs between runs.
package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

type hit struct {
	shard int
	doc   string
	score int
}

func searchShard(shard int, docs []string, term string) []hit {
	var hits []hit
	for i, d := range docs {
		if strings.Contains(d, term) {
			hits = append(hits, hit{shard: shard, doc: d, score: len(d) - i})
		}
		if i%4 == 3 {
			time.Sleep(15 * time.Microsecond) // page in the next posting block
		}
	}
	return hits
}

func main() {
	shards := make([][]string, 8)
	for s := range shards {
		for d := 0; d < 16; d++ {
			shards[s] = append(shards[s], fmt.Sprintf("doc-%d-%d golang scheduler %s", s, d, strings.Repeat("x", d%5)))
		}
	}
	var (
		mu  sync.Mutex
		all []hit
		wg  sync.WaitGroup
	)
	for s, docs := range shards {
		wg.Add(1)
		go func(shard int, docs []string) {
			defer wg.Done()
			found := searchShard(shard, docs, "scheduler")
			mu.Lock()
			all = append(all, found...)
			mu.Unlock()
		}(s, docs)
	}
	wg.Wait()
	sort.Slice(all, func(i, j int) bool { return all[i].score > all[j].score })
	fmt.Println("hits", len(all))
}
