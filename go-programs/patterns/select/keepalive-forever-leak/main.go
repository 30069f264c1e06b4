// Package main starts a keepalive goroutine per backend. When a backend's
// address fails validation the goroutine logs and parks itself with an empty
// select "until shutdown", but nothing ever ends it: it is blocked forever.
package main

import (
	"fmt"
	"net/netip"
	"sync"
	"time"
)

type backend struct {
	addr  string
	beats int
}

func keepalive(b *backend, rounds int, ready *sync.WaitGroup) {
	if _, err := netip.ParseAddrPort(b.addr); err != nil {
		ready.Done()
		select {} // wait for shutdown, which never comes
	}
	defer ready.Done()
	for i := 0; i < rounds; i++ {
		time.Sleep(200 * time.Microsecond)
		b.beats++
	}
}

func main() {
	backends := []*backend{
		{addr: "10.0.0.1:8080"}, {addr: "10.0.0.2:8080"}, {addr: "10.0.0.3:80800"},
		{addr: "10.0.0.4:9090"}, {addr: "db.internal:5432"}, {addr: "10.0.0.6:6379"},
	}
	var ready sync.WaitGroup
	for _, b := range backends {
		ready.Add(1)
		go keepalive(b, 12, &ready)
	}
	ready.Wait()
	total := 0
	for _, b := range backends {
		total += b.beats
	}
	fmt.Println("beats", total)
}
