// TestPoolReuse creates its own pool and forgets to Release it, so the purge loop
// outlives the test and keeps ticking through the tests that follow.
package poolnorelease

import (
	"testing"
	"time"
)

func TestPoolReuse(t *testing.T) {
	p := NewPool(10 * time.Millisecond) // Bug: no defer p.Release()
	b := p.Get()
	b = append(b, "hello"...)
	p.Put(b)
	if got := p.Get(); cap(got) < 5 {
		t.Fatalf("buffer not reused: cap %d", cap(got))
	}
}

func TestPoolPurgesIdle(t *testing.T) {
	p := NewPool(4 * time.Millisecond)
	defer p.Release()
	p.Put(make([]byte, 0, 64))
	deadline := time.Now().Add(time.Second)
	for p.Idle() > 0 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	if p.Idle() != 0 {
		t.Fatal("idle buffer never purged")
	}
	time.Sleep(15 * time.Millisecond) // the first test's loop keeps ticking meanwhile
}
