// Package main validates a batch of uploaded records with a hand-written
// errgroup: Go() runs each task in a goroutine, the first error cancels the
// shared context, and Wait() returns that first error after every task exits.
package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

type group struct {
	wg      sync.WaitGroup
	errOnce sync.Once
	err     error
	cancel  context.CancelFunc
}

func withContext(ctx context.Context) (*group, context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	return &group{cancel: cancel}, ctx
}

func (g *group) Go(task func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := task(); err != nil {
			g.errOnce.Do(func() {
				g.err = err
				g.cancel()
			})
		}
	}()
}

func (g *group) Wait() error {
	g.wg.Wait()
	g.cancel()
	return g.err
}

func validate(ctx context.Context, record string) error {
	for step := 0; step < 5; step++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Microsecond):
		}
		if step == 3 && strings.Contains(record, "??") {
			return errors.New("record " + record + ": unparseable field")
		}
	}
	return nil
}

func main() {
	records := make([]string, 12)
	for i := range records {
		records[i] = fmt.Sprintf("id=%d;name=item%d", i, i)
	}
	records[7] = "id=7;name=??"
	g, ctx := withContext(context.Background())
	for _, r := range records {
		g.Go(func() error { return validate(ctx, r) })
	}
	err := g.Wait()
	fmt.Println("batch valid:", err == nil)
}
