// Bug class: select with no case that can ever fire. Merge disables each input by
// setting it to nil once it is closed (the usual idiom) but never leaves the loop
// when both are nil, so the merger blocks in a select over two nil channels forever
// and its output is never closed. The consumer reads the known number of items and
// returns; the merger leaks on every schedule.
package nilcases

import (
	"testing"
	"time"
)

// Merge forwards values from a and b to out until both are closed.
func Merge(a, b <-chan int, out chan<- int) {
	for {
		select {
		case v, ok := <-a:
			if !ok {
				a = nil
				continue
			}
			out <- v
		case v, ok := <-b:
			if !ok {
				b = nil
				continue
			}
			out <- v
		}
		// Bug: missing `if a == nil && b == nil { close(out); return }`.
	}
}

func emit(ch chan<- int, from, n int) {
	for i := 0; i < n; i++ {
		ch <- from + i
	}
	close(ch)
}

func TestMergeTwoFeeds(t *testing.T) {
	a, b := make(chan int), make(chan int)
	out := make(chan int)
	go emit(a, 0, 20)
	go emit(b, 100, 20)
	go Merge(a, b, out)
	sum := 0
	for i := 0; i < 40; i++ {
		sum += <-out
	}
	if want := 190 + 2190; sum != want {
		t.Fatalf("sum = %d, want %d", sum, want)
	}
	time.Sleep(5 * time.Millisecond)
}
