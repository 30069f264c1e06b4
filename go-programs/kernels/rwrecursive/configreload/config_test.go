// Bug class: recursive RWMutex read lock with a waiting writer. Config.Describe
// holds a read lock and calls Get, which read-locks again. A Reload that calls
// Lock in between waits for the first reader, and the second RLock queues behind
// the waiting writer: reader and writer both block in sync and leak. Describe
// renders slowly, so the writer arrives in between on every schedule.
package configreload

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Config is a live configuration that can be reloaded while it is read.
type Config struct {
	mu     sync.RWMutex
	values map[string]string
	gen    int
}

// Get returns one setting.
func (c *Config) Get(key string) string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.values[key]
}

// Describe renders the configuration for a status page.
func (c *Config) Describe() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var b strings.Builder
	fmt.Fprintf(&b, "generation %d\n", c.gen)
	time.Sleep(5 * time.Millisecond) // format every section
	// Bug: Get read-locks c.mu again while this call still holds a read lock.
	fmt.Fprintf(&b, "service %s\n", c.Get("service"))
	return b.String()
}

// Reload replaces all values.
func (c *Config) Reload(values map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.values = values
	c.gen++
}

func TestDescribeDuringReload(t *testing.T) {
	c := &Config{values: map[string]string{"service": "checkout"}}
	done := make(chan string, 1)
	go func() {
		done <- c.Describe()
	}()
	go func() {
		time.Sleep(time.Millisecond)
		c.Reload(map[string]string{"service": "checkout-v2"})
	}()
	select {
	case page := <-done:
		t.Log(page)
	case <-time.After(50 * time.Millisecond):
		t.Log("status page never rendered")
	}
}
