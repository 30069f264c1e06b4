// A request client that waits for a late acknowledgement in the background and gives
// up after a second, as RPC clients do for fire-and-forget calls.
package afterwait

import (
	"sync/atomic"
	"time"
)

// Client sends requests and counts acknowledgements that arrive in time.
type Client struct {
	acked   atomic.Int64
	expired atomic.Int64
}

// Send hands req to the transport and returns at once; a goroutine awaits the ack.
func (c *Client) Send(req string, transport func(req string, ack chan<- string)) {
	ack := make(chan string, 1)
	go transport(req, ack)
	go c.awaitAck(ack)
}

func (c *Client) awaitAck(ack <-chan string) {
	select {
	case r := <-ack:
		if r != "" {
			c.acked.Add(1)
		}
	case <-time.After(time.Second):
		c.expired.Add(1)
	}
}
