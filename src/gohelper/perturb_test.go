package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

const perturbSample = `package sample

import "sync"

type box struct {
	mu sync.Mutex
	c  *sync.Cond
	n  int
}

func (b *box) run(ch chan int, done chan struct{}, wg *sync.WaitGroup) {
	b.mu.Lock() // first
	b.n++
	b.mu.Unlock()
	ch <- 1
	v := <-ch
	if x, ok := <-ch; ok { b.n += x + v }
	go func() { defer wg.Done(); ch <- 2 }()
	wg.Wait()
loop:
	for {
		select {
		case <-done:
			break loop
		case ch <- 3:
		}
	}
	b.c.Signal()
	close(ch)
	f := func() int { return <-ch }
	_ = f
}
`

func TestPerturbSourceKeepsEveryLineAndMarksEachSyncPoint(t *testing.T) {
	out, pkg, points, err := perturbSource("sample.go", []byte(perturbSample), 7)
	if err != nil {
		t.Fatal(err)
	}
	if pkg != "sample" {
		t.Fatalf("package %q", pkg)
	}
	if got, want := bytes.Count(out, []byte("\n")), strings.Count(perturbSample, "\n"); got != want {
		t.Fatalf("the rewrite has %d lines, the source %d", got, want)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "sample.go", out, 0); err != nil {
		t.Fatalf("the rewrite does not parse: %v\n%s", err, out)
	}
	var kinds []string
	for i, p := range points {
		if p.ID != 7+i {
			t.Fatalf("point %d has id %d", i, p.ID)
		}
		kinds = append(kinds, p.Kind)
	}
	want := "lock unlock send recv recv send go wait select select-case select-case signal close recv"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("points %v, want %s", kinds, want)
	}
	lines := strings.Split(string(out), "\n")
	// After the call, before any comment, on the same line.
	if lines[11] != "\tb.mu.Lock(); schedlabPerturb(7) // first" {
		t.Fatalf("line 12: %q", lines[11])
	}
	if lines[14] != "\tschedlabPerturb(9); ch <- 1" {
		t.Fatalf("line 15: %q", lines[14])
	}
	// The go statement gets its point after it; the send inside the literal gets its own.
	if lines[17] != "\tgo func() { defer wg.Done(); schedlabPerturb(12); ch <- 2 }(); schedlabPerturb(13)" {
		t.Fatalf("line 18: %q", lines[17])
	}
	// A receive inside a function literal belongs to the literal's body, not the assignment.
	if !strings.Contains(lines[29], "f := func() int { schedlabPerturb(20); return <-ch }") {
		t.Fatalf("line 30: %q", lines[29])
	}
}

func TestPerturbSourceLeavesCgoFilesAlone(t *testing.T) {
	out, _, points, err := perturbSource("c.go", []byte("package c\n\nimport \"C\"\n\nfunc f(ch chan int) { ch <- 1 }\n"), 0)
	if err != nil || out != nil || len(points) != 0 {
		t.Fatalf("cgo file rewritten: %v %q %v", err, out, points)
	}
}

func TestPerturbRuntimeIsValidGo(t *testing.T) {
	src := perturbRuntime("sample", 3)
	if _, err := parser.ParseFile(token.NewFileSet(), "rt.go", src, 0); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
}
