// A process-wide status feed: one package-level channel on which a poller, started on
// first use, publishes the service's status every 200 ms for the life of the process.
package globalsender

import (
	"fmt"
	"sync"
	"time"
)

var (
	events      = make(chan string)
	startPoller sync.Once
)

// Events returns the status feed, starting its poller on first use.
func Events() <-chan string {
	startPoller.Do(func() { go poll(200 * time.Millisecond) })
	return events
}

func poll(every time.Duration) {
	for seq := 1; ; seq++ {
		time.Sleep(every)
		events <- fmt.Sprintf("status %d: ok", seq)
	}
}
