// Package main serves profile requests with a per-request deadline. The handler
// starts a database query in a goroutine and waits for its result or the
// context's deadline; the query goroutine ignores the context and, when the
// handler has already given up, blocks forever sending its row.
package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

type row struct {
	userID int
	name   string
}

func queryProfile(userID int) row {
	// Cold rows take a slow path through the disk.
	if userID%3 == 0 {
		time.Sleep(3 * time.Millisecond)
	} else {
		time.Sleep(100 * time.Microsecond)
	}
	return row{userID: userID, name: fmt.Sprintf("user-%d", userID)}
}

func handleProfile(ctx context.Context, userID int) (row, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	rows := make(chan row)
	go func() {
		rows <- queryProfile(userID)
	}()
	select {
	case r := <-rows:
		return r, nil
	case <-ctx.Done():
		return row{}, errors.Join(ctx.Err(), fmt.Errorf("profile %d", userID))
	}
}

func main() {
	ok, failed := 0, 0
	for id := 1; id <= 18; id++ {
		if _, err := handleProfile(context.Background(), id); err != nil {
			failed++
			continue
		}
		ok++
	}
	time.Sleep(4 * time.Millisecond)
	fmt.Println("served", ok, "timed out", failed)
}
