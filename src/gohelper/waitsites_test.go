package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// waitSummary renders a site compactly: "kind@line[!][ T][ C] {case@line op operand[ T][ C]; …}",
// "!" marking a select that does not block (it has a default).
func waitSummary(s waitSite) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s@%d", s.Function, s.Kind, s.Line)
	if !s.Blocking {
		b.WriteString("!")
	}
	if s.Timed {
		b.WriteString(" T")
	}
	if s.Context {
		b.WriteString(" C")
	}
	if len(s.Cases) > 0 {
		var cases []string
		for _, c := range s.Cases {
			text := fmt.Sprintf("%d %s %s", c.Line, c.Op, c.Operand)
			if c.Timed {
				text += " T"
			}
			if c.Context {
				text += " C"
			}
			cases = append(cases, text)
		}
		b.WriteString(" {" + strings.Join(cases, "; ") + "}")
	}
	return b.String()
}

func waitSitesOfSource(t *testing.T, src string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	result := waitSitesOf([]string{path})
	if len(result.Errors) > 0 {
		t.Fatalf("errors: %v", result.Errors)
	}
	var out []string
	for _, s := range result.Sites {
		if s.File != "a.go" || s.Path != path || s.Package != "p" {
			t.Errorf("site %+v: wrong file, path or package", s)
		}
		out = append(out, waitSummary(s))
	}
	return out
}

func TestWaitSites(t *testing.T) {
	cases := []struct {
		name string
		src  string // package p; line 1 is `package p`
		want []string
	}{
		{"ticker loop", `package p
import "time"
func F(quit chan int) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-quit:
			return
		}
	}
}`, []string{"F select@7 T {8 recv t.C T; 9 recv quit}"}},
		{"the drain of a timer whose Stop failed is not timed", `package p
import "time"
func F(kick chan time.Duration) {
	t := time.NewTimer(time.Second)
	for d := range kick {
		if !t.Stop() {
			<-t.C
		}
		t.Reset(d)
		<-t.C
	}
}`, []string{"F range@5", "F recv@7", "F recv@10 T"}},
		{"time.After select, timeout variable, renamed import", `package p
import tm "time"
func F(ch chan int) {
	select {
	case v := <-ch:
		_ = v
	case <-tm.After(tm.Second):
	}
	timeout := tm.After(tm.Second)
	c := timeout
	select {
	case <-ch:
	case <-c:
	}
}`, []string{"F select@4 T {5 recv ch; 7 recv tm.After(tm.Second) T}", "F select@11 T {12 recv ch; 13 recv c T}"}},
		{"context: Done() call, done variable, struct field", `package p
import "context"
type S struct{ stop <-chan struct{} }
func (s *S) F(ctx context.Context, ch chan int) {
	done := ctx.Done()
	s.stop = ctx.Done()
	select {
	case <-ctx.Done():
	case ch <- 1:
	}
	<-done
	<-s.stop
}`, []string{"(*S).F select@7 C {8 recv ctx.Done() C; 9 send ch}", "(*S).F recv@11 C", "(*S).F recv@12 C"}},
		{"plain select, default, forever, single case", `package p
func F(a, b chan int) {
	select {
	case <-a:
	case b <- 1:
	}
	select {
	case <-a:
	default:
	}
	select {}
	select {
	case v, ok :=
		<-a:
		_, _ = v, ok
	}
}`, []string{"F select@3 {4 recv a; 5 send b}", "F select@7! {8 recv a}", "F select@11", "F select@13 {13 recv a}"}},
		{"bare receives, sends, comma-ok lines", `package p
import "time"
func F(ch chan int, m map[int]chan int) int {
	<-time.After(time.Second)
	x := 1 +
		<-ch
	v, ok :=
		<-ch
	_, _ = v, ok
	m[
		0] <- x
	ch <- <-ch
	return <-time.NewTimer(time.Second).C
}`, []string{"F recv@4 T", "F recv@6", "F recv@7", "F send@11", "F send@12", "F recv@12", "F recv@13 T"}},
		{"range over channels only", `package p
import "time"
type T struct{ C chan int }
func (T) Loop(ch chan int, xs []int, tk *time.Ticker, s T) {
	for range ch {
	}
	for range xs {
	}
	for i := range 3 {
		_ = i
	}
	for range tk.C {
	}
	for range time.Tick(time.Second) {
	}
	for range s.C {
	}
	<-s.C
}`, []string{"T.Loop range@5", "T.Loop range@12 T", "T.Loop range@14 T", "T.Loop range@16", "T.Loop recv@18"}},
		{"timer field and closure", `package p
import "time"
type W[K any] struct{ timer *time.Timer }
func (w *W[K]) Run(ch chan K) {
	w.timer = time.NewTimer(time.Second)
	go func() {
		select {
		case <-w.timer.C:
		case <-ch:
		}
	}()
}`, []string{"(*W[...]).Run select@7 T {8 recv w.timer.C T; 9 recv ch}"}},
		{"a local struct's C: timed only when it carries time values", `package p
import "time"
type fakeTimer struct{ C <-chan time.Time }
type pipe struct{ C chan string }
func F(f fakeTimer, p pipe) {
	<-f.C
	<-p.C
}`, []string{"F recv@6 T", "F recv@7"}},
		{"package-level ticker and a nested receive in a case", `package p
import "time"
var tick = time.Tick(time.Second)
func F(a, b chan int) {
	select {
	case <-tick:
	case a <- <-b:
	}
}`, []string{"F select@5 T {6 recv tick T; 7 send a}", "F recv@7"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := waitSitesOfSource(t, c.src)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

func TestWaitSitesSkipsUnparsableFiles(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.go"), filepath.Join(dir, "bad.go")
	_ = os.WriteFile(good, []byte("package p\nfunc F(ch chan int) { <-ch }\n"), 0o644)
	_ = os.WriteFile(bad, []byte("package p\nfunc G( {\n"), 0o644)
	result := waitSitesOf([]string{bad, good, filepath.Join(dir, "missing.go")})
	if len(result.Errors) != 2 || len(result.Sites) != 1 || waitSummary(result.Sites[0]) != "F recv@2" {
		t.Fatalf("got %+v", result)
	}
}
