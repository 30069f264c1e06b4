// Package main crawls a small in-memory site graph with a pool of crawler
// goroutines that all watch one context; once enough pages are collected the
// coordinator cancels, and every crawler returns from its select on ctx.Done().
package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

type page struct {
	url   string
	links []string
}

func fetch(url string) page {
	time.Sleep(40 * time.Microsecond) // network round trip
	var links []string
	for i := 0; i < 3; i++ {
		links = append(links, fmt.Sprintf("%s/%d", url, i))
	}
	return page{url: url, links: links}
}

func crawler(ctx context.Context, frontier <-chan string, found chan<- page, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case url := <-frontier:
			p := fetch(url)
			select {
			case found <- p:
			case <-ctx.Done():
				return
			}
		}
	}
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	frontier := make(chan string, 64)
	found := make(chan page)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go crawler(ctx, frontier, found, &wg)
	}
	frontier <- "https://docs.example"
	seen := map[string]bool{}
	for len(seen) < 40 {
		p := <-found
		seen[p.url] = true
		for _, l := range p.links {
			if !seen[l] && len(frontier) < cap(frontier) {
				frontier <- l
			}
		}
	}
	cancel()
	wg.Wait()
	fmt.Println("pages", len(seen))
}
