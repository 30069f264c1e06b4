// Package main tracks outstanding RPCs: each call spawns a waiter that selects on
// the call's reply channel and the client's close channel. Calls whose reply was
// dropped by the transport and a client that is never closed leave those waiters
// in a select where no case can ever fire.
package main

import (
	"fmt"
	"sync"
)

type call struct {
	id    int
	reply chan string
}

type client struct {
	mu       sync.Mutex
	pending  map[int]*call
	closing  chan struct{}
	answered int
}

func (c *client) await(cl *call, finished *sync.WaitGroup) {
	select {
	case <-cl.reply:
		c.mu.Lock()
		c.answered++
		c.mu.Unlock()
		finished.Done()
	case <-c.closing:
	}
}

func (c *client) send(id int, finished *sync.WaitGroup) *call {
	cl := &call{id: id, reply: make(chan string, 1)}
	c.mu.Lock()
	c.pending[id] = cl
	c.mu.Unlock()
	go c.await(cl, finished)
	return cl
}

// transport delivers replies, except for every fifth call, which it silently drops.
func transport(c *client, ids []int) {
	for _, id := range ids {
		c.mu.Lock()
		cl := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if id%5 == 4 {
			continue
		}
		cl.reply <- fmt.Sprintf("result-%d", id)
	}
}

func main() {
	c := &client{pending: make(map[int]*call), closing: make(chan struct{})}
	var finished sync.WaitGroup
	var ids []int
	for i := 0; i < 30; i++ {
		if i%5 != 4 {
			finished.Add(1)
		}
		c.send(i, &finished)
		ids = append(ids, i)
	}
	go transport(c, ids)
	finished.Wait()
	fmt.Println("answered", c.answered)
}
