// Package main fans user events out to per-shard goroutines by hashing the user
// id, so each shard owns its users' counters without locks; a router feeds the
// shards over buffered channels and then closes them.
package main

import (
	"fmt"
	"hash/fnv"
	"sync"
)

type event struct {
	user   string
	action string
}

func shardOf(user string, shards int) int {
	h := fnv.New32a()
	h.Write([]byte(user))
	return int(h.Sum32() % uint32(shards))
}

func shardWorker(in <-chan event, out chan<- map[string]int, wg *sync.WaitGroup) {
	defer wg.Done()
	counts := make(map[string]int)
	for e := range in {
		counts[e.user+":"+e.action]++
	}
	out <- counts
}

func main() {
	const shards = 4
	inputs := make([]chan event, shards)
	partials := make(chan map[string]int, shards)
	var wg sync.WaitGroup
	for i := range inputs {
		inputs[i] = make(chan event, 3)
		wg.Add(1)
		go shardWorker(inputs[i], partials, &wg)
	}
	actions := []string{"view", "click", "buy"}
	for i := 0; i < 150; i++ {
		e := event{user: fmt.Sprintf("u%d", i%17), action: actions[i%3]}
		inputs[shardOf(e.user, shards)] <- e
	}
	for _, in := range inputs {
		close(in)
	}
	wg.Wait()
	close(partials)
	keys := 0
	for p := range partials {
		keys += len(p)
	}
	fmt.Println("keys", keys)
}
