// A session manager started at package init: its goroutine alone holds the current
// session's context and cancel function, hands the context out on request, and cancels
// it when the session expires, ttl after it was created.
package liveowner

import (
	"context"
	"time"
)

// Manager serves the current session's context from its own goroutine.
type Manager struct {
	requests chan chan context.Context
}

var sessions = startManager(3 * time.Second)

func startManager(ttl time.Duration) *Manager {
	m := &Manager{requests: make(chan chan context.Context)}
	go m.run(ttl)
	return m
}

func (m *Manager) run(ttl time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	expiry := time.NewTimer(ttl)
	for {
		select {
		case reply := <-m.requests:
			reply <- ctx
		case <-expiry.C:
			cancel() // the session is over: everyone waiting on it is released
			ctx, cancel = context.WithCancel(context.Background())
			expiry.Reset(ttl)
		}
	}
}

// Session returns the context of the current session, cancelled when the session expires.
func Session() context.Context {
	reply := make(chan context.Context)
	sessions.requests <- reply
	return <-reply
}
