// Bug class: receive left without a partner. The key-value server goroutine skips
// requests for unknown keys without replying, so a client waiting on its reply
// channel blocks in chan receive forever; the server itself waits in chan receive
// for requests nobody sends any more. Both leak on every schedule.
package missingreply

import (
	"sync"
	"testing"
	"time"
)

type request struct {
	key   string
	reply chan string
}

// Server answers lookups from its own goroutine.
type Server struct {
	data     map[string]string
	requests chan request
}

func Serve(data map[string]string) *Server {
	s := &Server{data: data, requests: make(chan request)}
	go s.loop()
	return s
}

func (s *Server) loop() {
	for req := range s.requests {
		v, ok := s.data[req.key]
		if !ok {
			continue // Bug: the client is never answered
		}
		req.reply <- v
	}
}

// Get asks the server for key and waits for the answer.
func (s *Server) Get(key string) string {
	reply := make(chan string)
	s.requests <- request{key: key, reply: reply}
	return <-reply
}

func TestLookupUnknownKey(t *testing.T) {
	s := Serve(map[string]string{"region": "eu-central", "tier": "gold"})
	var wg sync.WaitGroup
	for _, k := range []string{"region", "tier", "quota", "region"} {
		wg.Add(1)
		go func(key string) {
			defer wg.Done()
			s.Get(key)
		}(k)
	}
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		t.Fatal("every lookup returned")
	case <-time.After(20 * time.Millisecond):
		t.Log("a client is still waiting for its reply")
	}
}
