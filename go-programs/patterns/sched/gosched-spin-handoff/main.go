// Package main passes a baton between four runners through an atomic turn counter.
// A runner whose turn has not come first yields with runtime.Gosched a few times
// (cheap when the baton is about to arrive) and only then parks on its wake-up
// channel, like an adaptive spin-then-park lock. How often each runner yields,
// and whether it parks at all, depends on how the scheduler interleaves them.
package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

const maxSpins = 3

type relay struct {
	turn atomic.Int64
	wake []chan struct{} // one slot each: a wake-up is never lost, duplicates are harmless
	log  []int
}

func (r *relay) waitFor(id int, want int64) {
	for spins := 0; r.turn.Load() != want; spins++ {
		if spins < maxSpins {
			runtime.Gosched()
			continue
		}
		<-r.wake[id]
	}
}

func (r *relay) pass(id int) {
	r.turn.Add(1)
	next := (id + 1) % len(r.wake)
	select {
	case r.wake[next] <- struct{}{}:
	default:
	}
}

func (r *relay) run(id, laps int, wg *sync.WaitGroup) {
	defer wg.Done()
	runners := len(r.wake)
	for lap := 0; lap < laps; lap++ {
		want := int64(lap*runners + id)
		r.waitFor(id, want)
		r.log[want] = id
		r.pass(id)
	}
}

func main() {
	const runners, laps = 4, 15
	r := &relay{log: make([]int, runners*laps)}
	for i := 0; i < runners; i++ {
		r.wake = append(r.wake, make(chan struct{}, 1))
	}
	var wg sync.WaitGroup
	for id := 0; id < runners; id++ {
		wg.Add(1)
		go r.run(id, laps, &wg)
	}
	wg.Wait()
	fmt.Println("laps", r.turn.Load())
}
