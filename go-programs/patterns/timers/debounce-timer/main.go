// Package main debounces file-change notifications: bursts of events from two
// watchers reset a time.Timer, and a rebuild runs only once the burst has been
// quiet for the debounce interval.
package main

import (
	"fmt"
	"sync"
	"time"
)

type change struct {
	path string
}

func debounce(in <-chan change, quiet time.Duration, rebuild func([]string)) {
	var pending []string
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case c, ok := <-in:
			if !ok {
				if len(pending) > 0 {
					rebuild(pending)
				}
				return
			}
			pending = append(pending, c.path)
			timer.Reset(quiet)
		case <-timer.C:
			rebuild(pending)
			pending = nil
		}
	}
}

func watcher(dir string, bursts int, out chan<- change, wg *sync.WaitGroup) {
	defer wg.Done()
	for b := 0; b < bursts; b++ {
		for f := 0; f < 6; f++ {
			out <- change{path: fmt.Sprintf("%s/file%d.go", dir, f)}
		}
		time.Sleep(2 * time.Millisecond) // the editor is idle between saves
	}
}

func main() {
	changes := make(chan change)
	rebuilds := 0
	done := make(chan struct{})
	go func() {
		debounce(changes, 500*time.Microsecond, func(paths []string) { rebuilds++ })
		close(done)
	}()
	var wg sync.WaitGroup
	wg.Add(2)
	go watcher("api", 5, changes, &wg)
	go watcher("web", 4, changes, &wg)
	wg.Wait()
	close(changes)
	<-done
	fmt.Println("rebuilds", rebuilds)
}
