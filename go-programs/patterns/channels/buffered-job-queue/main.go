// Package main runs a thumbnail job queue: a dispatcher fills a buffered queue,
// three workers drain it and report into a buffered results channel. Which worker
// takes which job, and when the buffer fills or empties, changes from run to run.
package main

import (
	"fmt"
	"hash/fnv"
	"sync"
)

type job struct {
	id     int
	path   string
	width  int
	height int
}

type result struct {
	jobID  int
	worker int
	digest uint32
}

func resize(j job) uint32 {
	h := fnv.New32a()
	for y := 0; y < j.height; y += 8 {
		fmt.Fprintf(h, "%s:%d:%d", j.path, j.width, y)
	}
	return h.Sum32()
}

func worker(id int, queue <-chan job, results chan<- result, wg *sync.WaitGroup) {
	defer wg.Done()
	for j := range queue {
		results <- result{jobID: j.id, worker: id, digest: resize(j)}
	}
}

func main() {
	queue := make(chan job, 4)
	results := make(chan result, 4)
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go worker(w, queue, results, &wg)
	}
	go func() {
		for i := 0; i < 40; i++ {
			queue <- job{id: i, path: fmt.Sprintf("img/%03d.png", i), width: 64 + i, height: 48 + i%16}
		}
		close(queue)
	}()
	go func() {
		wg.Wait()
		close(results)
	}()

	perWorker := make(map[int]int)
	for r := range results {
		perWorker[r.worker]++
	}
	fmt.Println("workers used:", len(perWorker))
}
