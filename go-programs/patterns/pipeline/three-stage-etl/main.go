// Package main is a three-stage ETL pipeline: a reader emits CSV lines, two
// parser goroutines turn them into records, and an aggregator sums them per
// region. Each stage closes its output when done; stages overlap freely.
package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

type sale struct {
	region string
	cents  int
}

func read(lines int) <-chan string {
	out := make(chan string, 2)
	go func() {
		defer close(out)
		regions := []string{"north", "south", "east", "west"}
		for i := 0; i < lines; i++ {
			out <- fmt.Sprintf("%d,%s,%d.%02d", i, regions[i%4], 10+i%90, i%100)
		}
	}()
	return out
}

func parse(in <-chan string, workers int) <-chan sale {
	out := make(chan sale)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for line := range in {
				fields := strings.Split(line, ",")
				euros, cents, _ := strings.Cut(fields[2], ".")
				e, _ := strconv.Atoi(euros)
				c, _ := strconv.Atoi(cents)
				out <- sale{region: fields[1], cents: e*100 + c}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

func aggregate(in <-chan sale) map[string]int {
	totals := make(map[string]int)
	for s := range in {
		totals[s.region] += s.cents
	}
	return totals
}

func main() {
	totals := aggregate(parse(read(120), 2))
	fmt.Println("regions", len(totals))
}
