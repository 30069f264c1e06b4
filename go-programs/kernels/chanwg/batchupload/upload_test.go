// Bug class: channel and WaitGroup. Upload sends each part from its own goroutine
// and a closer goroutine waits on the WaitGroup before closing the error channel.
// Upload returns on the first error, so the remaining part uploaders block in chan
// send and never call Done, and the closer blocks in WaitGroup.Wait. The failing
// part fails fast, so they leak on every schedule.
package batchupload

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// Store is an object store that rejects parts over its size limit.
type Store struct {
	limit int
}

func (s *Store) putPart(key string, part []byte) error {
	if len(part) > s.limit {
		return fmt.Errorf("%s: part of %d bytes exceeds limit %d", key, len(part), s.limit)
	}
	time.Sleep(2 * time.Millisecond) // network round trip
	return nil
}

// Upload stores all parts concurrently and reports the first failure.
func Upload(s *Store, key string, parts [][]byte) error {
	errc := make(chan error)
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func(i int, p []byte) {
			defer wg.Done()
			errc <- s.putPart(fmt.Sprintf("%s.part%d", key, i), p)
		}(i, p)
	}
	go func() {
		wg.Wait()
		close(errc)
	}()
	for err := range errc {
		if err != nil {
			return err // Bug: abandons the other senders
		}
	}
	return nil
}

func TestUploadRejectsLargePart(t *testing.T) {
	s := &Store{limit: 8}
	parts := [][]byte{[]byte("header"), make([]byte, 64), []byte("body"), []byte("footer"), []byte("index")}
	err := Upload(s, "backup-2024", parts)
	if err == nil {
		t.Fatal("the oversized part was accepted")
	}
	t.Log(err)
	time.Sleep(10 * time.Millisecond)
}
