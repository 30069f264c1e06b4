// Package main lazily builds a shared API client with sync.Once: the first caller
// performs the slow setup while concurrent callers block in Once.Do until it is done.
package main

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

type apiClient struct {
	baseURL string
	headers map[string]string
}

var (
	clientOnce sync.Once
	client     *apiClient
	setups     int
)

func sharedClient() *apiClient {
	clientOnce.Do(func() {
		setups++
		time.Sleep(2 * time.Millisecond) // TLS handshake, token exchange
		client = &apiClient{baseURL: "https://api.internal", headers: map[string]string{"Authorization": "Bearer t0k3n"}}
	})
	return client
}

func (c *apiClient) buildRequest(path string, n int) string {
	var b strings.Builder
	b.WriteString(c.baseURL)
	b.WriteString(path)
	fmt.Fprintf(&b, "?page=%d", n)
	return b.String()
}

func main() {
	var wg sync.WaitGroup
	requests := make(chan string, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(worker int) {
			defer wg.Done()
			for i := 0; i < 6; i++ {
				requests <- sharedClient().buildRequest(fmt.Sprintf("/v1/items/%d", worker), i)
			}
		}(w)
	}
	go func() {
		wg.Wait()
		close(requests)
	}()
	n := 0
	for range requests {
		n++
	}
	fmt.Println("requests", n, "setups", setups)
}
