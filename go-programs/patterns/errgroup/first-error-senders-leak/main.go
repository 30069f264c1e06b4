// Package main fans out image resize tasks and collects their results from an
// unbuffered channel. The collector returns at the first error, so every task
// that finishes afterwards blocks forever sending its result.
package main

import (
	"errors"
	"fmt"
	"time"
)

type resized struct {
	name  string
	bytes int
	err   error
}

func resizeImage(name string, size int) resized {
	time.Sleep(time.Duration(size) * time.Microsecond)
	if size%9 == 0 {
		return resized{name: name, err: errors.New(name + ": corrupt header")}
	}
	return resized{name: name, bytes: size * 1024 / 3}
}

func resizeAll(sizes []int) (int, error) {
	results := make(chan resized)
	for i, s := range sizes {
		go func(name string, size int) {
			results <- resizeImage(name, size)
		}(fmt.Sprintf("img-%02d.jpg", i), s)
	}
	total := 0
	for range sizes {
		r := <-results
		if r.err != nil {
			return 0, r.err // bug: the remaining senders are never drained
		}
		total += r.bytes
	}
	return total, nil
}

func main() {
	sizes := []int{120, 340, 90, 510, 230, 600, 180, 270, 410, 75, 130, 380}
	total, err := resizeAll(sizes)
	fmt.Println("bytes", total, "error", err != nil)
	time.Sleep(time.Millisecond)
}
