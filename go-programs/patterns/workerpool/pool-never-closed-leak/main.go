// Package main uses a mail-sending worker pool whose Start launches workers that
// range over the job channel. The caller waits for the expected number of
// receipts and returns without ever closing the job channel, so every worker
// stays blocked receiving the next job.
package main

import (
	"fmt"
	"strings"
	"time"
)

type mail struct {
	to      string
	subject string
}

type Pool struct {
	jobs     chan mail
	receipts chan string
}

func (p *Pool) Start(workers int) {
	for w := 0; w < workers; w++ {
		go func(id int) {
			for m := range p.jobs {
				time.Sleep(30 * time.Microsecond) // SMTP round trip
				p.receipts <- fmt.Sprintf("w%d:%s", id, strings.ToLower(m.to))
			}
		}(w)
	}
}

func main() {
	p := &Pool{jobs: make(chan mail, 4), receipts: make(chan string)}
	p.Start(5)
	recipients := []string{"Ana@example.com", "Bo@example.com", "Cy@example.com", "Di@example.com"}
	go func() {
		for i := 0; i < 32; i++ {
			p.jobs <- mail{to: recipients[i%4], subject: fmt.Sprintf("invoice %d", i)}
		}
	}()
	for i := 0; i < 32; i++ {
		<-p.receipts
	}
	fmt.Println("sent 32 mails")
}
