// Bug class: select with no case that can ever fire. The test waits for a service
// to report ready or failed, but the startup goroutine returns early on a bad
// configuration without signalling either channel. The test goroutine blocks in
// select and the test hangs on every schedule.
package startupwait

import (
	"errors"
	"strconv"
	"testing"
	"time"
)

// Service starts asynchronously and reports the outcome on ready or failed.
type Service struct {
	port   string
	ready  chan struct{}
	failed chan error
}

func Launch(port string) *Service {
	s := &Service{port: port, ready: make(chan struct{}), failed: make(chan error, 1)}
	go s.start()
	return s
}

func (s *Service) start() {
	n, err := strconv.Atoi(s.port)
	if err != nil || n <= 0 || n > 65535 {
		return // Bug: neither ready nor failed is signalled
	}
	time.Sleep(time.Millisecond) // bind and warm up
	if n < 1024 {
		s.failed <- errors.New("privileged port")
		return
	}
	close(s.ready)
}

func TestStartWithBadPort(t *testing.T) {
	s := Launch("80800")
	select {
	case <-s.ready:
		t.Fatal("service started on an invalid port")
	case err := <-s.failed:
		t.Log("startup failed:", err)
	}
}
