// Tests of the perturbation rewrite (perturb.go): every line kept, each synchronisation
// point marked, cgo files left alone, go 1.12 code.
package overlay

import (
	"bytes"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
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

// The perturbed copies are built at the user module's language version, which may be as
// old as go 1.12: the runtime and a rewritten file must type-check there (no any, 0o
// literals, generics, min/max or range over int).
func TestPerturbCodeTypeChecksAtGo112(t *testing.T) {
	out, _, points, err := perturbSource("sample.go", []byte(perturbSample), 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for name, src := range map[string]string{"sample.go": string(out), "rt.go": perturbRuntime("sample", len(points))} {
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{GoVersion: "go1.12", Importer: importer.Default()}
	if _, err := conf.Check("sample", fset, files, nil); err != nil {
		t.Fatalf("does not type-check at go1.12: %v", err)
	}
	// The check is real: a 0o literal is refused at that version.
	bad, _ := parser.ParseFile(fset, "bad.go", "package sample\n\nvar mode = 0o644\n", 0)
	if _, err := conf.Check("sample", fset, []*ast.File{bad}, nil); err == nil || !strings.Contains(err.Error(), "go1.13") {
		t.Fatalf("a 0o literal passed the go1.12 check: %v", err)
	}
}
