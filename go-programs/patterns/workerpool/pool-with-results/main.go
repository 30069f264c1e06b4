// Package main runs a fixed pool of checksum workers started by (*Pool).Start;
// jobs go in over one channel and results come back on another, and Stop closes
// the job queue and waits for the workers.
package main

import (
	"crypto/sha256"
	"fmt"
	"sync"
)

type task struct {
	id   int
	blob []byte
}

type digest struct {
	id     int
	worker int
	sum    [32]byte
}

type Pool struct {
	size    int
	tasks   chan task
	results chan digest
	wg      sync.WaitGroup
}

func NewPool(size int) *Pool {
	return &Pool{size: size, tasks: make(chan task), results: make(chan digest, size)}
}

func (p *Pool) Start() {
	for w := 0; w < p.size; w++ {
		p.wg.Add(1)
		go p.work(w)
	}
}

func (p *Pool) work(worker int) {
	defer p.wg.Done()
	for t := range p.tasks {
		sum := sha256.Sum256(t.blob)
		for i := 0; i < t.id%5; i++ {
			sum = sha256.Sum256(sum[:])
		}
		p.results <- digest{id: t.id, worker: worker, sum: sum}
	}
}

func (p *Pool) Stop() {
	close(p.tasks)
	p.wg.Wait()
	close(p.results)
}

func main() {
	p := NewPool(4)
	p.Start()
	go func() {
		for i := 0; i < 60; i++ {
			p.tasks <- task{id: i, blob: []byte(fmt.Sprintf("backup-part-%04d", i))}
		}
		p.Stop()
	}()
	byWorker := map[int]int{}
	for d := range p.results {
		byWorker[d.worker]++
	}
	fmt.Println("workers", len(byWorker))
}
