// Package main implements a bounded print queue with one mutex and two condition
// variables (notFull, notEmpty). Producers and consumers wait in Cond.Wait inside
// a loop that re-checks the condition, so every wake-up is safe.
package main

import (
	"fmt"
	"sync"
)

type printJob struct {
	owner string
	pages int
}

type boundedQueue struct {
	mu       sync.Mutex
	notFull  *sync.Cond
	notEmpty *sync.Cond
	items    []printJob
	limit    int
	closed   bool
}

func newBoundedQueue(limit int) *boundedQueue {
	q := &boundedQueue{limit: limit}
	q.notFull = sync.NewCond(&q.mu)
	q.notEmpty = sync.NewCond(&q.mu)
	return q
}

func (q *boundedQueue) put(j printJob) {
	q.mu.Lock()
	for len(q.items) == q.limit {
		q.notFull.Wait()
	}
	q.items = append(q.items, j)
	q.notEmpty.Signal()
	q.mu.Unlock()
}

func (q *boundedQueue) take() (printJob, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.notEmpty.Wait()
	}
	if len(q.items) == 0 {
		return printJob{}, false
	}
	j := q.items[0]
	q.items = q.items[1:]
	q.notFull.Signal()
	return j, true
}

func (q *boundedQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.notEmpty.Broadcast()
	q.mu.Unlock()
}

func main() {
	q := newBoundedQueue(3)
	var producers, printers sync.WaitGroup
	printed := make([]int, 2)
	for p := 0; p < 2; p++ {
		printers.Add(1)
		go func(id int) {
			defer printers.Done()
			for {
				j, ok := q.take()
				if !ok {
					return
				}
				printed[id] += j.pages
			}
		}(p)
	}
	for _, owner := range []string{"ana", "ben", "chen"} {
		producers.Add(1)
		go func(owner string) {
			defer producers.Done()
			for i := 0; i < 20; i++ {
				q.put(printJob{owner: owner, pages: 1 + i%4})
			}
		}(owner)
	}
	producers.Wait()
	q.close()
	printers.Wait()
	fmt.Println("pages", printed[0]+printed[1])
}
