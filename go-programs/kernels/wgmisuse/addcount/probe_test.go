// Bug class: WaitGroup misuse (Add count does not match the goroutines started).
// ProbeAll adds len(hosts) to the WaitGroup up front but skips hosts in the
// maintenance list without starting a prober, so Wait never returns: the test
// goroutine blocks in sync and the test hangs on every schedule.
package addcount

import (
	"sync"
	"testing"
	"time"
)

// ProbeAll checks every host not under maintenance and returns the healthy ones.
func ProbeAll(hosts []string, maintenance map[string]bool) []string {
	var (
		mu      sync.Mutex
		healthy []string
		wg      sync.WaitGroup
	)
	wg.Add(len(hosts))
	for _, h := range hosts {
		if maintenance[h] {
			continue // Bug: the Add above already counted this host
		}
		go func(host string) {
			defer wg.Done()
			time.Sleep(time.Millisecond) // TCP connect
			mu.Lock()
			healthy = append(healthy, host)
			mu.Unlock()
		}(h)
	}
	wg.Wait()
	return healthy
}

func TestProbeSkipsMaintenance(t *testing.T) {
	got := ProbeAll([]string{"web-1", "web-2", "web-3", "db-1"}, map[string]bool{"web-2": true})
	if len(got) != 3 {
		t.Fatalf("healthy = %v", got)
	}
}
