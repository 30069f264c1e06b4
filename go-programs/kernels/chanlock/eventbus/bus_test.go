// Bug class: channel and lock. Bus.PublishAll holds the bus mutex while it sends
// each event on every subscriber's unbuffered channel. A subscriber that reacts to
// "shutdown" by calling Unsubscribe needs the same mutex, so it blocks in sync
// while the publisher blocks sending it the next event; the audit subscriber waits
// for events forever. All three leak on every schedule.
package eventbus

import (
	"sync"
	"testing"
	"time"
)

// Bus fans events out to subscribers.
type Bus struct {
	mu   sync.Mutex
	subs map[int]chan string
	next int
}

func NewBus() *Bus { return &Bus{subs: make(map[int]chan string)} }

// Subscribe returns a subscription id and its event channel.
func (b *Bus) Subscribe() (int, <-chan string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	ch := make(chan string)
	b.subs[b.next] = ch
	return b.next, ch
}

// Unsubscribe stops delivering events to id.
func (b *Bus) Unsubscribe(id int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.subs, id)
}

// PublishAll delivers events in order to every subscriber, in subscription order.
func (b *Bus) PublishAll(events []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ev := range events {
		for id := 1; id <= b.next; id++ {
			if ch, ok := b.subs[id]; ok {
				ch <- ev // Bug: blocking send while holding b.mu
			}
		}
	}
}

func TestUnsubscribeDuringPublish(t *testing.T) {
	bus := NewBus()
	cacheID, cacheEvents := bus.Subscribe()
	_, auditEvents := bus.Subscribe()
	go func() {
		for ev := range cacheEvents {
			if ev == "shutdown" {
				bus.Unsubscribe(cacheID)
			}
		}
	}()
	go func() {
		for ev := range auditEvents {
			_ = ev // append to the audit log
		}
	}()
	published := make(chan struct{})
	go func() {
		bus.PublishAll([]string{"config", "config", "shutdown", "config"})
		close(published)
	}()
	select {
	case <-published:
	case <-time.After(50 * time.Millisecond):
		t.Log("publisher is stuck")
	}
}
