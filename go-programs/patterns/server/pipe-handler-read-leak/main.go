// Package main serves status requests over net.Pipe connections, one handler
// goroutine per connection. Clients that time out abandon their connection
// without closing it; with no read deadline, those handlers wait for a request
// line that never arrives.
package main

import (
	"bufio"
	"fmt"
	"net"
	"sync"
	"time"
)

func handle(conn net.Conn, served *sync.WaitGroup) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadString('\n') // bug: no read deadline
		if err != nil {
			served.Done()
			return
		}
		fmt.Fprintf(conn, "200 %s", line)
	}
}

func request(conn net.Conn, id int, patience time.Duration) bool {
	reply := make(chan string, 1)
	go func() {
		time.Sleep(time.Duration(id%3) * 400 * time.Microsecond) // client-side work
		fmt.Fprintf(conn, "GET /status/%d\n", id)
		line, _ := bufio.NewReader(conn).ReadString('\n')
		reply <- line
	}()
	select {
	case <-reply:
		conn.Close()
		return true
	case <-time.After(patience):
		return false // bug: the connection is abandoned, not closed
	}
}

func main() {
	var served sync.WaitGroup
	ok := 0
	for id := 0; id < 9; id++ {
		server, client := net.Pipe()
		served.Add(1)
		go handle(server, &served)
		if request(client, id, 600*time.Microsecond) {
			ok++
		}
	}
	time.Sleep(2 * time.Millisecond)
	fmt.Println("answered", ok, "of 9")
}
