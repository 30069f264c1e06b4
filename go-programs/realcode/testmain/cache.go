// A small TTL cache with an expiry sweep, and a change feed whose subscribers wait
// for updates.
package testmain

import (
	"sync"
	"time"
)

// Cache maps keys to values that expire after ttl.
type Cache struct {
	mu      sync.Mutex
	items   map[string]item
	ttl     time.Duration
	updates chan string
}

type item struct {
	value   string
	expires time.Time
}

// NewCache returns an empty cache.
func NewCache(ttl time.Duration) *Cache {
	return &Cache{items: map[string]item{}, ttl: ttl, updates: make(chan string)}
}

// Set stores value under key.
func (c *Cache) Set(key, value string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items[key] = item{value: value, expires: time.Now().Add(c.ttl)}
}

// Get returns the value under key if it has not expired.
func (c *Cache) Get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[key]
	if !ok || time.Now().After(it.expires) {
		return "", false
	}
	return it.value, true
}

// Sweep drops expired entries and returns how many it dropped.
func (c *Cache) Sweep(now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, it := range c.items {
		if now.After(it.expires) {
			delete(c.items, k)
			n++
		}
	}
	return n
}

// Updates is the change feed; nothing in this package ever sends on it yet.
func (c *Cache) Updates() <-chan string { return c.updates }
