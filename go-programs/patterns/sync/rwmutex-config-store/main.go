// Package main serves feature flags from an RWMutex-guarded store: many readers
// evaluate flags while an admin goroutine publishes new versions, so readers and
// the writer queue behind each other in schedule-dependent ways.
package main

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

type flags struct {
	mu      sync.RWMutex
	version int
	enabled map[string]bool
}

func (f *flags) isOn(name string) (bool, int) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.enabled[name], f.version
}

func (f *flags) publish(set map[string]bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.enabled = set
	f.version++
}

func evaluate(f *flags, user int, checks int, seen []int, wg *sync.WaitGroup) {
	defer wg.Done()
	names := []string{"new-checkout", "dark-mode", "beta-search"}
	for i := 0; i < checks; i++ {
		on, v := f.isOn(names[(user+i)%len(names)])
		if on {
			seen[user] = v
		}
		if i%10 == 0 {
			time.Sleep(30 * time.Microsecond)
		}
	}
}

func admin(f *flags, rounds int, wg *sync.WaitGroup) {
	defer wg.Done()
	for r := 0; r < rounds; r++ {
		f.publish(map[string]bool{
			"new-checkout": r%2 == 0,
			"dark-mode":    true,
			"beta-search":  strings.HasSuffix(fmt.Sprint(r), "3"),
		})
		time.Sleep(100 * time.Microsecond)
	}
}

func main() {
	f := &flags{enabled: map[string]bool{"dark-mode": true}}
	seen := make([]int, 5)
	var wg sync.WaitGroup
	wg.Add(6)
	go admin(f, 15, &wg)
	for u := 0; u < 5; u++ {
		go evaluate(f, u, 120, seen, &wg)
	}
	wg.Wait()
	fmt.Println("final version", f.version)
}
