// Bug class: channel and context. A lease's renewer goroutine exits on context
// cancellation without sending the acknowledgement that Release waits for, so the
// test goroutine blocks in chan receive and the test hangs on every schedule.
package leaserenew

import (
	"context"
	"testing"
	"time"
)

// Lease is a time-limited claim on a resource, renewed in the background.
type Lease struct {
	holder   string
	renewals int
	release  chan struct{}
	released chan struct{}
}

// Acquire takes the lease and keeps renewing it until released or ctx ends.
func Acquire(ctx context.Context, holder string) *Lease {
	l := &Lease{holder: holder, release: make(chan struct{}), released: make(chan struct{})}
	go l.renew(ctx)
	return l
}

func (l *Lease) renew(ctx context.Context) {
	ticker := time.NewTicker(time.Millisecond)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			l.renewals++
		case <-l.release:
			l.released <- struct{}{}
			return
		case <-ctx.Done():
			return // Bug: Release still waits on l.released
		}
	}
}

// Release gives up the lease and waits until the renewer has stopped.
func (l *Lease) Release() {
	close(l.release)
	<-l.released
}

func TestReleaseAfterCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	l := Acquire(ctx, "scheduler-1")
	time.Sleep(15 * time.Millisecond) // do the work the lease protects
	l.Release()
}
