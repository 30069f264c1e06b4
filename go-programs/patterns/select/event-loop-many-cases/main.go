// Package main is the event loop of a connection manager: one goroutine selects
// over six channels (dials, closes, messages, pings, config reloads, shutdown)
// fed by independent goroutines, so the order of cases taken is up to the scheduler.
package main

import (
	"fmt"
	"sync"
)

type manager struct {
	conns    map[int]bool
	messages int
	pings    int
	reloads  int
}

type feeds struct {
	dial     chan int
	hangup   chan int
	message  chan string
	ping     chan struct{}
	reload   chan map[string]string
	shutdown chan struct{}
}

func (m *manager) loop(f feeds, stopped chan<- struct{}) {
	defer close(stopped)
	for {
		select {
		case id := <-f.dial:
			m.conns[id] = true
		case id := <-f.hangup:
			delete(m.conns, id)
		case <-f.message:
			m.messages++
		case <-f.ping:
			m.pings++
		case cfg := <-f.reload:
			m.reloads += len(cfg)
		case <-f.shutdown:
			return
		}
	}
}

func main() {
	f := feeds{
		dial: make(chan int), hangup: make(chan int), message: make(chan string),
		ping: make(chan struct{}), reload: make(chan map[string]string), shutdown: make(chan struct{}),
	}
	m := &manager{conns: make(map[int]bool)}
	stopped := make(chan struct{})
	go m.loop(f, stopped)

	var wg sync.WaitGroup
	wg.Add(5)
	go func() {
		defer wg.Done()
		for i := 0; i < 15; i++ {
			f.dial <- i
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 15; i += 2 {
			f.hangup <- i
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 25; i++ {
			f.message <- fmt.Sprintf("msg-%d", i)
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 10; i++ {
			f.ping <- struct{}{}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 4; i++ {
			f.reload <- map[string]string{"timeout": "5s", "retries": fmt.Sprint(i)}
		}
	}()
	wg.Wait()
	close(f.shutdown)
	<-stopped
	fmt.Println("messages", m.messages, "pings", m.pings)
}
