// Bug class: recursive RWMutex read lock with a waiting writer. Store.Valid
// read-locks the store and calls expired, which read-locks it again; the janitor
// takes the write lock to evict sessions. Shows on some schedules only: when the
// janitor's Lock lands between the two RLocks, the request goroutine and the
// janitor block in sync (and other requests pile up behind them) and leak.
package sessionstore

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

type session struct {
	user    string
	expires time.Time
}

// Store holds login sessions.
type Store struct {
	mu       sync.RWMutex
	sessions map[string]session
}

func (s *Store) expired(id string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return time.Now().After(s.sessions[id].expires)
}

// Valid reports whether the session exists and has not expired.
func (s *Store) Valid(id string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.sessions[id]; !ok {
		return false
	}
	runtime.Gosched()
	return !s.expired(id) // Bug: recursive read lock
}

// Evict removes expired sessions.
func (s *Store) Evict() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for id, sess := range s.sessions {
		if now.After(sess.expires) {
			delete(s.sessions, id)
		}
	}
}

func TestValidateWhileEvicting(t *testing.T) {
	s := &Store{sessions: make(map[string]session)}
	for i := 0; i < 8; i++ {
		s.sessions[fmt.Sprint("sid-", i)] = session{user: fmt.Sprint("user", i), expires: time.Now().Add(time.Hour)}
	}
	var wg sync.WaitGroup
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				s.Valid(fmt.Sprint("sid-", (r+i)%8))
			}
		}(r)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 10; i++ {
			s.Evict()
			runtime.Gosched()
		}
	}()
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(60 * time.Millisecond):
		t.Log("session checks stalled")
	}
}
