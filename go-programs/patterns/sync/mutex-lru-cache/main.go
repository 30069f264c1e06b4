// Package main exercises a mutex-guarded LRU cache from several request
// goroutines at once; lock hand-offs between them decide hit rates and eviction order.
package main

import (
	"container/list"
	"fmt"
	"sync"
	"time"
)

type entry struct {
	key   string
	value []byte
}

type lru struct {
	mu       sync.Mutex
	capacity int
	order    *list.List
	items    map[string]*list.Element
	hits     int
	misses   int
}

func newLRU(capacity int) *lru {
	return &lru{capacity: capacity, order: list.New(), items: make(map[string]*list.Element)}
}

func (c *lru) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.order.MoveToFront(el)
		c.hits++
		return el.Value.(*entry).value, true
	}
	c.misses++
	return nil, false
}

func (c *lru) put(key string, value []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*entry).value = value
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&entry{key: key, value: value})
	if c.order.Len() > c.capacity {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(*entry).key)
	}
}

// render builds a page from the origin on a cache miss (the sleep stands for the origin round trip).
func render(key string) []byte {
	time.Sleep(20 * time.Microsecond)
	out := make([]byte, 0, 256)
	for i := 0; i < 40; i++ {
		out = append(out, key...)
	}
	return out
}

func serve(c *lru, client int, requests int, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < requests; i++ {
		key := fmt.Sprintf("page-%d", (client*7+i*i)%23)
		if _, ok := c.get(key); !ok {
			c.put(key, render(key))
		}
	}
}

func main() {
	cache := newLRU(12)
	var wg sync.WaitGroup
	for client := 0; client < 6; client++ {
		wg.Add(1)
		go serve(cache, client, 120, &wg)
	}
	wg.Wait()
	fmt.Println("requests", cache.hits+cache.misses)
}
