// Bug class: WaitGroup misuse (missing Done). A thumbnail worker returns early for
// an unsupported format without calling Done, so the goroutine that waits on the
// WaitGroup to close the output never wakes: it blocks in sync and leaks on every
// schedule, and the caller only notices through its own timeout.
package missingdone

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// Thumbnail is a rendered preview.
type Thumbnail struct {
	Name  string
	Bytes int
}

// RenderAll renders every image concurrently; the channel closes when all are done.
func RenderAll(images []string) <-chan Thumbnail {
	out := make(chan Thumbnail, len(images))
	var wg sync.WaitGroup
	for _, img := range images {
		wg.Add(1)
		go func(name string) {
			if !strings.HasSuffix(name, ".png") && !strings.HasSuffix(name, ".jpg") {
				return // Bug: skips wg.Done()
			}
			out <- Thumbnail{Name: name, Bytes: len(name) * 64}
			wg.Done()
		}(img)
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

func TestRenderMixedFormats(t *testing.T) {
	thumbs := RenderAll([]string{"a.png", "b.jpg", "c.tiff", "d.png"})
	timeout := time.After(20 * time.Millisecond)
	count := 0
	for {
		select {
		case _, ok := <-thumbs:
			if !ok {
				t.Log("rendered", count)
				return
			}
			count++
		case <-timeout:
			t.Log("render stalled after", count, "thumbnails")
			return
		}
	}
}
