// Package main uploads file chunks in parallel and waits for all of them with a
// WaitGroup. The retry path for a failed chunk returns without calling Done, so
// the counter never reaches zero and main blocks in Wait forever: the whole
// program deadlocks (a traced run hangs until the collector's deadline).
package main

import (
	"fmt"
	"hash/crc32"
	"sync"
)

type chunk struct {
	index int
	data  []byte
}

type uploader struct {
	mu       sync.Mutex
	stored   map[int]uint32
	failures int
}

func (u *uploader) upload(c chunk, wg *sync.WaitGroup) {
	sum := crc32.ChecksumIEEE(c.data)
	if sum%7 == 0 {
		u.mu.Lock()
		u.failures++
		u.mu.Unlock()
		return // bug: retry is left to the caller, but wg.Done is skipped
	}
	u.mu.Lock()
	u.stored[c.index] = sum
	u.mu.Unlock()
	wg.Done()
}

func main() {
	u := &uploader{stored: make(map[int]uint32)}
	var wg sync.WaitGroup
	for i := 0; i < 24; i++ {
		data := []byte(fmt.Sprintf("chunk-%02d-%s", i, "payload payload payload"))
		wg.Add(1)
		go u.upload(chunk{index: i, data: data}, &wg)
	}
	wg.Wait()
	fmt.Println("stored", len(u.stored))
}
