// Package main runs a line-protocol key-value server with one goroutine per
// connection, over in-memory net.Pipe connections. Clients issue SET/GET
// commands concurrently; the store is guarded by a mutex.
package main

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
)

type store struct {
	mu   sync.Mutex
	data map[string]string
}

func (s *store) serve(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.Fields(line)
		var reply string
		s.mu.Lock()
		switch {
		case len(cmd) == 3 && cmd[0] == "SET":
			s.data[cmd[1]] = cmd[2]
			reply = "OK"
		case len(cmd) == 2 && cmd[0] == "GET":
			reply = s.data[cmd[1]]
		default:
			reply = "ERR"
		}
		s.mu.Unlock()
		if _, err := fmt.Fprintln(conn, reply); err != nil {
			return
		}
	}
}

func runClient(id int, conn net.Conn, wg *sync.WaitGroup) {
	defer wg.Done()
	defer conn.Close()
	r := bufio.NewReader(conn)
	for i := 0; i < 8; i++ {
		fmt.Fprintf(conn, "SET k%d-%d v%d\n", id, i, i)
		r.ReadString('\n')
		fmt.Fprintf(conn, "GET k%d-%d\n", (id+1)%4, i)
		r.ReadString('\n')
	}
}

func main() {
	s := &store{data: make(map[string]string)}
	var clients sync.WaitGroup
	for c := 0; c < 4; c++ {
		server, client := net.Pipe()
		go s.serve(server)
		clients.Add(1)
		go runClient(c, client, &clients)
	}
	clients.Wait()
	s.mu.Lock()
	fmt.Println("keys", len(s.data))
	s.mu.Unlock()
}
