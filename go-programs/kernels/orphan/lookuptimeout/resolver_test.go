// Bug class: send left without a partner after a timeout. Lookup gives up after its
// timeout, and the query goroutine then blocks in chan send on the unbuffered
// answer channel forever. Shows on some schedules: the upstream delay equals the
// timeout, so each lookup races the timer.
package lookuptimeout

import (
	"testing"
	"time"
)

func TestLookupRacesTimeout(t *testing.T) {
	r := &Resolver{
		upstream: map[string]string{"db.internal": "10.0.3.1", "cache.internal": "10.0.3.2"},
		delay:    2 * time.Millisecond,
	}
	for _, host := range []string{"db.internal", "cache.internal", "db.internal"} {
		addr, err := r.Lookup(host, 2500*time.Microsecond)
		t.Log(host, addr, err)
	}
	time.Sleep(5 * time.Millisecond)
}
