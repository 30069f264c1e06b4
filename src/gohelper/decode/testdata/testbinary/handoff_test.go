// A test binary the decoder tests trace with `go test -trace`: the test's goroutine is a
// root of its own and what it starts hangs from it. Line numbers are asserted by
// decode_trace_test.go.
package handoff

import "testing"

func TestHandoff(t *testing.T) {
	ch := make(chan int)
	go func() { ch <- 1 }()
	<-ch
}
