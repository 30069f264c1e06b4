// A crawler-style task chain: each step does a little work, starts its successor and
// returns, so only one or two goroutines are alive at a time though thousands are
// created from one go statement. The last step reports on a channel nobody reads.
package successors

import "sync/atomic"

// Chain runs n steps one after the other, each in its own goroutine.
type Chain struct {
	steps   int
	reached chan struct{}
	result  chan int
	done    atomic.Int64
}

// Start launches the first step; Reached is closed when the last step runs.
func Start(steps int) *Chain {
	c := &Chain{steps: steps, reached: make(chan struct{}), result: make(chan int)}
	go c.step(0, 0)
	return c
}

// Reached is closed once the last step has started.
func (c *Chain) Reached() <-chan struct{} { return c.reached }

func (c *Chain) step(i, acc int) {
	acc += i % 7 // the step's work
	c.done.Add(1)
	if i+1 < c.steps {
		go c.step(i+1, acc)
		return
	}
	close(c.reached)
	c.result <- acc // Bug: the caller only waits for Reached and never reads the result
}
