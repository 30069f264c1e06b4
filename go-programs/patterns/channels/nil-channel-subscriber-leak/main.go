// Package main registers alert subscribers by topic. A subscriber for a topic
// that was never created looks up a nil channel in the map and receives from it,
// which blocks forever; the other subscribers finish normally.
package main

import (
	"fmt"
	"sync"
)

type alert struct {
	topic string
	text  string
}

type hub struct {
	topics map[string]chan alert
}

func newHub(names ...string) *hub {
	h := &hub{topics: make(map[string]chan alert)}
	for _, n := range names {
		h.topics[n] = make(chan alert, 2)
	}
	return h
}

func (h *hub) subscribe(topic string, want int, seen *sync.WaitGroup, counts []int, slot int) {
	ch := h.topics[topic] // nil for an unknown topic
	for i := 0; i < want; i++ {
		<-ch
		counts[slot]++
	}
	seen.Done()
}

func main() {
	h := newHub("disk", "cpu", "memory")
	subs := []string{"disk", "cpu", "memory", "network"}
	counts := make([]int, len(subs))
	var known sync.WaitGroup
	known.Add(3)
	for i, topic := range subs {
		go h.subscribe(topic, 20, &known, counts, i)
	}
	for i := 0; i < 20; i++ {
		for _, t := range []string{"disk", "cpu", "memory"} {
			h.topics[t] <- alert{topic: t, text: fmt.Sprintf("%s alert %d", t, i)}
		}
	}
	known.Wait()
	fmt.Println("delivered", counts[0]+counts[1]+counts[2])
}
