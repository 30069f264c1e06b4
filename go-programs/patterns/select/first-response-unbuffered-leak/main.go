// Package main resolves a hostname against several DNS resolvers concurrently and
// uses the first answer. The answers channel is unbuffered and only one value is
// received, so every slower resolver blocks in its send forever.
package main

import (
	"fmt"
	"strings"
)

type answer struct {
	resolver string
	ip       string
}

func lookup(resolver, host string, work int, answers chan<- answer) {
	octet := 0
	for i := 0; i < work; i++ {
		octet = (octet*17 + int(host[i%len(host)]) + i) % 251
	}
	answers <- answer{resolver: resolver, ip: fmt.Sprintf("192.0.2.%d", octet)}
}

func resolve(host string, resolvers []string) answer {
	answers := make(chan answer)
	for i, r := range resolvers {
		go lookup(r, host, 3000+i*500, answers)
	}
	return <-answers
}

func main() {
	resolvers := []string{"1.1.1.1", "8.8.8.8", "9.9.9.9", "208.67.222.222"}
	hosts := []string{"api.example.com", "cdn.example.com", "auth.example.com", "db.example.com", "mq.example.com",
		"img.example.com", "ws.example.com", "mail.example.com"}
	var picked []string
	for _, h := range hosts {
		a := resolve(h, resolvers)
		picked = append(picked, a.resolver)
	}
	fmt.Println(strings.Count(strings.Join(picked, ","), ",")+1, "lookups")
}
