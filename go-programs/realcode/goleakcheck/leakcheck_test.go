// A hand-written goroutine leak check in the manner of goleak: after each test, every
// goroutine but the current one and the testing package's own must be gone (retrying a
// little while for goroutines on their way out), else the test fails listing them.
package goleakcheck

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// otherGoroutines returns the stacks of all goroutines except the caller's and the
// test runner's.
func otherGoroutines() []string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	stacks := strings.Split(string(buf), "\n\n")
	var others []string
	for _, stack := range stacks[1:] { // the first stack is the current goroutine
		if !isMachinery(stack) {
			others = append(others, stack)
		}
	}
	return others
}

// isMachinery reports whether a goroutine belongs to the test runner or the runtime:
// the main goroutine inside testing.(*M).Run, a test goroutine (entry testing.tRunner)
// waiting for its subtests, or a runtime or os/signal goroutine.
func isMachinery(stack string) bool {
	var frames []string
	for _, line := range strings.Split(strings.TrimSpace(stack), "\n")[1:] {
		if !strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, "created by ") {
			frames = append(frames, line[:strings.LastIndex(line, "(")])
		}
	}
	if len(frames) == 0 {
		return false
	}
	entry := frames[len(frames)-1]
	for _, f := range frames {
		if f == "testing.(*M).Run" {
			return true
		}
	}
	return entry == "testing.tRunner" || strings.HasPrefix(entry, "runtime.") || strings.HasPrefix(entry, "os/signal.")
}

// verifyNone fails t when unexpected goroutines remain after retrying for up to 100 ms.
func verifyNone(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(100 * time.Millisecond)
	for {
		others := otherGoroutines()
		if len(others) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("found unexpected goroutines:\n%s", strings.Join(others, "\n\n"))
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBatcherFlushesInBatches(t *testing.T) {
	defer verifyNone(t)
	var sizes []int
	b := NewBatcher(3, func(batch []string) { sizes = append(sizes, len(batch)) })
	for _, item := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		b.Add(item)
	}
	b.Close()
	if len(sizes) != 3 || sizes[0] != 3 || sizes[2] != 1 {
		t.Fatalf("batch sizes = %v, want [3 3 1]", sizes)
	}
}

func TestBatcherCloseEmpty(t *testing.T) {
	defer verifyNone(t)
	flushed := 0
	b := NewBatcher(4, func([]string) { flushed++ })
	b.Close()
	if flushed != 0 {
		t.Fatalf("flushed %d empty batches", flushed)
	}
}
