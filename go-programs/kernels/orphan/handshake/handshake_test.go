// Bug class: receive left without a partner after an early return. The server side
// of an in-memory handshake rejects an unsupported protocol version by returning
// without sending an acknowledgement; the client (the test goroutine) blocks in
// chan receive waiting for it and the test hangs on every schedule.
package handshake

import (
	"testing"
)

type hello struct {
	version int
	client  string
}

type ack struct {
	session string
	err     string
}

// Conn is one direction-pair of an in-memory connection.
type Conn struct {
	hellos chan hello
	acks   chan ack
}

// Accept serves one handshake on c.
func Accept(c *Conn, supported map[int]bool) {
	h := <-c.hellos
	if !supported[h.version] {
		return // Bug: should send ack{err: "unsupported version"}
	}
	c.acks <- ack{session: h.client + "-s1"}
}

// Dial performs the client side of the handshake.
func Dial(c *Conn, client string, version int) ack {
	c.hellos <- hello{version: version, client: client}
	return <-c.acks
}

func TestHandshakeOldVersion(t *testing.T) {
	c := &Conn{hellos: make(chan hello, 1), acks: make(chan ack)}
	go Accept(c, map[int]bool{3: true, 4: true})
	a := Dial(c, "edge-7", 2)
	if a.err == "" {
		t.Fatal("old version accepted")
	}
}
