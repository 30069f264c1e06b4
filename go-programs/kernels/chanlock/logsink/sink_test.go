// Bug class: channel and lock. Writers hold the sink mutex while queueing a line on
// a small buffered channel; the flusher drains the channel but takes the same
// mutex to rotate the file every 16 lines. Shows on some schedules: when the
// buffer is full at rotation time, a writer blocks in chan send holding the lock,
// the flusher blocks in sync, and the other writer blocks in sync too.
package logsink

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// Sink is an asynchronous line logger with file rotation.
type Sink struct {
	mu       sync.Mutex
	lines    chan string
	seq      int
	rotation int
	written  int
}

// Write stamps a line with a sequence number and queues it.
func (s *Sink) Write(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	s.lines <- fmt.Sprintf("%06d %s", s.seq, msg) // Bug: may block while holding s.mu
}

func (s *Sink) flush() {
	for line := range s.lines {
		_ = line
		s.written++
		if s.written%32 == 0 {
			s.mu.Lock() // rotate: no sequence numbers may be issued meanwhile
			s.rotation++
			s.mu.Unlock()
		}
	}
}

// checksum stands in for the formatting work a writer does before taking the lock.
func checksum(w, i int) uint32 {
	h := uint32(2166136261)
	for k := 0; k < 3000; k++ {
		h = (h ^ uint32(w*131+i+k)) * 16777619
	}
	return h
}

func TestRotateUnderLoad(t *testing.T) {
	s := &Sink{lines: make(chan string, 8)}
	go s.flush()
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 60; i++ {
				s.Write(fmt.Sprintf("writer %d line %d checksum %x", w, i, checksum(w, i)))
				if i%6 == 5 {
					time.Sleep(20 * time.Microsecond) // wait for the next batch of requests
				}
			}
		}(w)
	}
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(s.lines)
		close(finished)
	}()
	select {
	case <-finished:
		t.Log("rotations:", s.rotation)
	case <-time.After(60 * time.Millisecond):
		t.Log("logging stalled")
	}
}
