// Package main reads a key from three replicas and takes the first answer that
// arrives, with an overall timeout. The reply channel has one slot per replica,
// so the slower replicas can always complete their send and exit.
package main

import (
	"fmt"
	"time"
)

type reply struct {
	replica int
	value   string
	version int
}

type replica struct {
	id   int
	data map[string]string
}

func (r *replica) get(key string, out chan<- reply) {
	// A little CPU work so replicas finish in a schedule-dependent order.
	h := uint32(2166136261)
	for i := 0; i < 2000*(r.id+1); i++ {
		h = (h ^ uint32(key[i%len(key)])) * 16777619
	}
	out <- reply{replica: r.id, value: r.data[key], version: int(h % 7)}
}

func readAny(replicas []*replica, key string, timeout time.Duration) (reply, bool) {
	out := make(chan reply, len(replicas))
	for _, r := range replicas {
		go r.get(key, out)
	}
	select {
	case rep := <-out:
		return rep, true
	case <-time.After(timeout):
		return reply{}, false
	}
}

func main() {
	var replicas []*replica
	for i := 0; i < 3; i++ {
		replicas = append(replicas, &replica{id: i, data: map[string]string{"user:1": "ada", "user:2": "grace"}})
	}
	winners := make(map[int]int)
	for i := 0; i < 20; i++ {
		rep, ok := readAny(replicas, fmt.Sprintf("user:%d", 1+i%2), 50*time.Millisecond)
		if ok {
			winners[rep.replica]++
		}
	}
	time.Sleep(2 * time.Millisecond)
	fmt.Println("distinct winners", len(winners))
}
