package defaultpool

import (
	"errors"
	"time"
)

var errTimeout = errors.New("fetch timed out")

// FetchWithTimeout asks a slow backend for key and gives up after timeout.
func FetchWithTimeout(key string, latency, timeout time.Duration) (string, error) {
	result := make(chan string)
	go func() {
		time.Sleep(latency)
		result <- "value-of-" + key // Bug: nobody receives once the caller timed out
	}()
	select {
	case v := <-result:
		return v, nil
	case <-time.After(timeout):
		return "", errTimeout
	}
}
