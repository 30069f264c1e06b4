// Package main is an in-process pub/sub broker: publishers send to the broker's
// inbox, and the broker fans each message out to the buffered channels of the
// topic's subscribers. Subscribers and publishers all race on the broker.
package main

import (
	"fmt"
	"sync"
)

type message struct {
	topic string
	body  string
}

type broker struct {
	inbox chan message
	subs  map[string][]chan message
}

func newBroker() *broker {
	return &broker{inbox: make(chan message), subs: make(map[string][]chan message)}
}

func (b *broker) subscribe(topic string) <-chan message {
	ch := make(chan message, 2)
	b.subs[topic] = append(b.subs[topic], ch)
	return ch
}

func (b *broker) run() {
	for m := range b.inbox {
		for _, ch := range b.subs[m.topic] {
			ch <- m
		}
	}
	for _, list := range b.subs {
		for _, ch := range list {
			close(ch)
		}
	}
}

func main() {
	b := newBroker()
	topics := []string{"orders", "payments", "shipping"}
	var subscribers sync.WaitGroup
	received := make([]int, 6)
	for i := 0; i < 6; i++ {
		ch := b.subscribe(topics[i%3])
		subscribers.Add(1)
		go func(slot int, ch <-chan message) {
			defer subscribers.Done()
			for range ch {
				received[slot]++
			}
		}(i, ch)
	}
	go b.run()
	var publishers sync.WaitGroup
	for p := 0; p < 3; p++ {
		publishers.Add(1)
		go func(p int) {
			defer publishers.Done()
			for i := 0; i < 12; i++ {
				b.inbox <- message{topic: topics[(p+i)%3], body: fmt.Sprintf("event %d from %d", i, p)}
			}
		}(p)
	}
	publishers.Wait()
	close(b.inbox)
	subscribers.Wait()
	fmt.Println("deliveries", received[0]+received[1]+received[2]+received[3]+received[4]+received[5])
}
