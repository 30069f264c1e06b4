// Package main passes a baton between four runners through an atomic turn counter.
// A runner whose turn has not come yields with runtime.Gosched instead of
// blocking, so progress depends entirely on how the scheduler interleaves the spinners.
package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

func runner(id, runners, laps int, turn *atomic.Int64, log []int, wg *sync.WaitGroup) {
	defer wg.Done()
	for lap := 0; lap < laps; lap++ {
		want := int64(lap*runners + id)
		for turn.Load() != want {
			runtime.Gosched()
		}
		log[want] = id
		turn.Add(1)
	}
}

func main() {
	const runners, laps = 4, 12
	var turn atomic.Int64
	log := make([]int, runners*laps)
	var wg sync.WaitGroup
	for id := 0; id < runners; id++ {
		wg.Add(1)
		go runner(id, runners, laps, &turn, log, &wg)
	}
	wg.Wait()
	fmt.Println("laps", turn.Load())
}
