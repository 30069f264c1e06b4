// Bug class: double locking. Cache.Get holds the cache mutex when it finds an
// expired entry and calls refresh, which takes the same non-reentrant mutex again.
// The test goroutine blocks on its own lock, so the test hangs on every schedule.
package cacherefresh

import (
	"strings"
	"sync"
	"testing"
	"time"
)

type entry struct {
	value   string
	expires time.Time
}

// Cache is a small TTL cache that reloads missing or expired entries from a loader.
type Cache struct {
	mu     sync.Mutex
	ttl    time.Duration
	items  map[string]entry
	loader func(key string) string
}

func NewCache(ttl time.Duration, loader func(string) string) *Cache {
	return &Cache{ttl: ttl, items: make(map[string]entry), loader: loader}
}

// Put stores a value that expires after the cache TTL.
func (c *Cache) Put(key, value string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items[key] = entry{value: value, expires: time.Now().Add(c.ttl)}
}

// Get returns the cached value, refreshing it when it is missing or expired.
func (c *Cache) Get(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if ok && time.Now().Before(e.expires) {
		return e.value
	}
	// Bug: refresh locks c.mu again while Get still holds it.
	return c.refresh(key)
}

func (c *Cache) refresh(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.loader(key)
	c.items[key] = entry{value: v, expires: time.Now().Add(c.ttl)}
	return v
}

func TestCacheRefresh(t *testing.T) {
	c := NewCache(time.Minute, func(key string) string { return "loaded:" + key })
	warm := []string{"eu-west", "us-east", "ap-south"}
	for _, k := range warm {
		c.Put(k, "warm:"+k)
	}
	var wg sync.WaitGroup
	for _, k := range warm {
		wg.Add(1)
		go func(key string) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				if v := c.Get(key); !strings.HasPrefix(v, "warm:") {
					t.Errorf("Get(%q) = %q", key, v)
				}
			}
		}(k)
	}
	wg.Wait()
	// A cold key takes the refresh path and deadlocks the test goroutine.
	if got := c.Get("sa-east"); got != "loaded:sa-east" {
		t.Fatalf("Get = %q", got)
	}
}
