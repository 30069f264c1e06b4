// A caching resolver whose query goroutine is orphaned when the lookup times out.
package lookuptimeout

import (
	"errors"
	"time"
)

var errTimeout = errors.New("lookup timed out")

// Resolver answers host lookups from a slow upstream.
type Resolver struct {
	upstream map[string]string
	delay    time.Duration
}

func (r *Resolver) query(host string, answer chan<- string) {
	time.Sleep(r.delay)
	answer <- r.upstream[host] // Bug: blocks forever once Lookup has timed out
}

// Lookup returns the address of host, or errTimeout after timeout.
func (r *Resolver) Lookup(host string, timeout time.Duration) (string, error) {
	answer := make(chan string)
	go r.query(host, answer)
	select {
	case addr := <-answer:
		return addr, nil
	case <-time.After(timeout):
		return "", errTimeout
	}
}
