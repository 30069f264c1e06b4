// Package main shares a pool of three backend connections (net.Pipe pairs) among
// eight request goroutines. The pool is a buffered channel of idle connections:
// taking one blocks while all are in use, and returning one wakes a waiter.
package main

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
)

type connPool struct {
	idle chan *pooledConn
}

type pooledConn struct {
	conn net.Conn
	r    *bufio.Reader
	uses int
}

func backend(conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		q, err := r.ReadString('\n')
		if err != nil {
			return
		}
		fmt.Fprintf(conn, "%s\n", strings.ToUpper(strings.TrimSpace(q)))
	}
}

func newConnPool(size int) *connPool {
	p := &connPool{idle: make(chan *pooledConn, size)}
	for i := 0; i < size; i++ {
		client, server := net.Pipe()
		go backend(server)
		p.idle <- &pooledConn{conn: client, r: bufio.NewReader(client)}
	}
	return p
}

func (p *connPool) query(q string) string {
	c := <-p.idle
	defer func() { p.idle <- c }()
	c.uses++
	fmt.Fprintf(c.conn, "%s\n", q)
	answer, _ := c.r.ReadString('\n')
	return answer
}

func (p *connPool) close() {
	for i := 0; i < cap(p.idle); i++ {
		(<-p.idle).conn.Close()
	}
}

func main() {
	pool := newConnPool(3)
	var wg sync.WaitGroup
	for r := 0; r < 8; r++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				pool.query(fmt.Sprintf("select name from users where id=%d", id*10+i))
			}
		}(r)
	}
	wg.Wait()
	pool.close()
	fmt.Println("queries done")
}
