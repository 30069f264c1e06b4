package scan

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
	if s.Signal {
		b.WriteString(" S")
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
			if c.Signal {
				text += " S"
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

// A wait on a channel given to signal.Notify (directly, through a copy, or as a select case)
// ends when the process gets a signal: a daemon's main parks there for its lifetime.
func TestWaitSitesSignalChannels(t *testing.T) {
	got := waitSitesOfSource(t, `package p

import (
	"os"
	sig "os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	sig.Notify(stop, os.Interrupt, syscall.SIGTERM)
	again := stop
	<-again
	other := make(chan int)
	select {
	case <-stop:
	case <-other:
	}
	<-other
}
`)
	want := []string{
		"main recv@13 S",
		"main select@15 S {16 recv stop S; 17 recv other}",
		"main recv@19",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
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

// opSummary renders a channel operation: "function op@line class [funcStart-funcEnd]",
// "-" for an operand without a class, then " ~merged" when the merged class differs and
// " param=funcId#index" for a local parameter.
func opSummary(o chanOp) string {
	class := "-"
	if o.Channel != nil {
		class = *o.Channel
	}
	out := fmt.Sprintf("%s %s@%d %s [%d-%d]", o.Function, o.Op, o.Line, class, o.FuncStart, o.FuncEnd)
	if o.Merged != nil && *o.Merged != class {
		out += " ~" + *o.Merged
	}
	if (o.Channel == nil) != (o.Merged == nil) {
		out += " (merged without a class)"
	}
	if o.Param != nil {
		out += " param=" + paramText(*o.Param)
	}
	return out
}

func paramText(p paramRef) string {
	return fmt.Sprintf("%s#%d", p.FuncID, p.Index)
}

func waitResultOfSource(t *testing.T, src string) waitSitesResult {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	result := waitSitesOf([]string{path})
	if len(result.Errors) > 0 {
		t.Fatalf("errors: %v", result.Errors)
	}
	for _, o := range result.Ops {
		if o.File != "a.go" || o.Path != path {
			t.Errorf("op %+v: wrong file or path", o)
		}
	}
	return result
}

func TestChannelClasses(t *testing.T) {
	cases := []struct {
		name string
		src  string // package p; line 1 is `package p`
		want []string
	}{
		{"a ring of closures over local channels: three classes", `package p
func Ring() {
	ab := make(chan int)
	bc := make(chan int)
	ca := make(chan int)
	go func() {
		v := <-ca
		ab <- v
	}()
	go func() {
		v := <-ab
		bc <- v
	}()
	go func() { bc <- <-ca }()
	x, y := ab, bc
	x <- 1
	<-y
}`, []string{
			"Ring recv@7 ca@a.go:5 [6-9]", "Ring send@8 ab@a.go:3 [6-9]",
			"Ring recv@11 ab@a.go:3 [10-13]", "Ring send@12 bc@a.go:4 [10-13]",
			"Ring send@14 bc@a.go:4 [14-14]", "Ring recv@14 ca@a.go:5 [14-14]",
			"Ring send@16 ab@a.go:3 [2-18]", "Ring recv@17 bc@a.go:4 [2-18]",
		}},
		{"parameters: local ones are named, not joined with their arguments; merged joins every channel passed, literals too", `package p
func worker(in <-chan int, out chan<- int) {
	for v := range in {
		out <- v
	}
	close(out)
}
func Ring() {
	ab, bc, ca := make(chan int), make(chan int), make(chan int)
	go worker(ab, bc)
	go worker(bc, ca)
	go worker(ca, ab)
	done := make(chan struct{})
	go func(d chan struct{}) { <-d }(done)
	other := make(chan int)
	<-other
}`, []string{
			"worker recv@3 in@a.go:2 [2-7] param=worker@a.go:2:1#0",
			"worker send@4 out@a.go:2 [2-7] ~in@a.go:2 param=worker@a.go:2:1#1",
			"worker close@6 out@a.go:2 [2-7] ~in@a.go:2 param=worker@a.go:2:1#1",
			"Ring recv@14 d@a.go:14 [14-14] ~done@a.go:13 param=Ring.func@a.go:14:5#0",
			"Ring recv@16 other@a.go:15 [8-17]",
		}},
		{"parameters that leave their function are joined with their arguments, and through them their callers' parameters", `package p
type holder struct{ c chan int }
var global chan int
func keep(h *holder, c chan int) { h.c = c }
func pass(c chan int) chan int { return c }
func either(a, b chan int) {
	x := a
	x = b
	<-x
}
func forward(c chan int) { keep(nil, c) }
func local(c chan int) {
	d := c
	go func() { <-d }()
}
func F() {
	k, r, e1, e2, fw, l := make(chan int), make(chan int), make(chan int), make(chan int), make(chan int), make(chan int)
	keep(nil, k)
	_ = pass(r)
	either(e1, e2)
	forward(fw)
	local(l)
	<-k
	<-fw
	<-r
	<-l
	global = l
}`, []string{
			// a and b share x: both leave.
			"either recv@9 a@a.go:6 [6-10]",
			// d is local's own variable: c stays local; l, passed to it, is assigned to global.
			"local recv@14 c@a.go:12 [14-14] ~global@a.go:3 param=local@a.go:12:1#0",
			// keep stores c in a field: k joins the field, and fw through forward's c.
			"F recv@23 c@a.go:2 [16-28]",
			"F recv@24 c@a.go:2 [16-28]",
			// pass returns c: r joins the result.
			"F recv@25 c@a.go:5 [16-28]",
			"F recv@26 global@a.go:3 [16-28]",
		}},
		{"struct fields: keyed and positional literals, field assignment, promoted field", `package p
type link struct{ next chan int }
type pair struct {
	left, right chan int
}
type node struct {
	link
	id int
}
func F() {
	a, b, c, d := make(chan int), make(chan int), make(chan int), make(chan int)
	l := link{next: a}
	p := pair{b, c}
	var n node
	n.next = d
	<-l.next
	<-p.left
	p.right <- 1
	<-n.next
	<-d
	<-b
}`, []string{
			"F recv@16 next@a.go:2 [10-22]", "F recv@17 left@a.go:4 [10-22]", "F send@18 right@a.go:4 [10-22]",
			"F recv@19 next@a.go:2 [10-22]", "F recv@20 next@a.go:2 [10-22]", "F recv@21 left@a.go:4 [10-22]",
		}},
		{"a channel returned by a constructor, single and multiple results, generic method", `package p
type box[T any] struct{ c chan T }
func (b *box[T]) set(c chan T) { b.c = c }
func newChan() chan int {
	c := make(chan int)
	return c
}
func newPair() (chan int, chan string) {
	x, y := make(chan int), make(chan string)
	return x, y
}
func F() {
	a := newChan()
	n, s := newPair()
	var g box[int]
	fresh := make(chan int)
	g.set(fresh)
	a <- 1
	<-n
	<-s
	<-g.c
}`, []string{
			"F send@18 c@a.go:5 [12-22]", "F recv@19 x@a.go:9 [12-22]", "F recv@20 y@a.go:9 [12-22]", "F recv@21 c@a.go:2 [12-22]",
		}},
		{"a select with one case on a ring channel; time.After and Done() have no class", `package p
import (
	"context"
	"time"
)
func F(ctx context.Context) {
	ab := make(chan int)
	go func() { ab <- 1 }()
	select {
	case v := <-ab:
		_ = v
	case <-time.After(time.Second):
	case <-ctx.Done():
	}
	select {
	case <-ab:
	}
}`, []string{
			"F send@8 ab@a.go:7 [8-8]", "F recv@9 ab@a.go:7 [6-18]", "F recv@9 - [6-18]", "F recv@9 - [6-18]", "F recv@16 ab@a.go:7 [6-18]",
		}},
		{"not joined: channels sent over channels, kept in maps or interfaces, nor two make calls", `package p
func F() {
	a, b := make(chan int), make(chan int)
	cc := make(chan chan int, 1)
	cc <- a
	got := <-cc
	m := map[string]chan int{"a": a}
	var i any = a
	<-got
	<-m["a"]
	<-i.(chan int)
	<-a
	<-b
}`, []string{
			"F send@5 cc@a.go:4 [2-14]", "F recv@6 cc@a.go:4 [2-14]", "F recv@9 got@a.go:6 [2-14]",
			"F recv@10 - [2-14]", "F recv@11 - [2-14]", "F recv@12 a@a.go:3 [2-14]", "F recv@13 b@a.go:3 [2-14]",
		}},
		{"slices of channels: literal, append, range and index stand for their elements", `package p
func F(n int) {
	a, b, c := make(chan int), make(chan int), make(chan int)
	chans := []chan int{a}
	chans = append(chans, b)
	for _, ch := range chans {
		close(ch)
	}
	<-chans[n]
	<-c
	var arr [2]chan int
	arr[0] = c
}`, []string{
			"F close@7 a@a.go:3 [2-13]", "F recv@9 a@a.go:3 [2-13]", "F recv@10 c@a.go:3 [2-13]",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			result := waitResultOfSource(t, c.src)
			var got []string
			for _, o := range result.Ops {
				got = append(got, opSummary(o))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

func TestWaitSiteChannelsAndFunctions(t *testing.T) {
	result := waitResultOfSource(t, `package p
import "time"
func F(in, out chan int) {
	go func() {
		select {
		case v := <-in:
			out <- v
		case out <- 0:
		case <-time.After(time.Second):
		}
	}()
	<-time.After(time.Second)
}
func G() { F(make(chan int), make(chan int)) }`)
	var got []string
	for _, s := range result.Sites {
		cases := []string{}
		for _, c := range s.Cases {
			class := "-"
			if c.Channel != nil {
				class = *c.Channel
			}
			cases = append(cases, class)
		}
		got = append(got, fmt.Sprintf("%s@%d %v %v", s.Kind, s.Line, s.Channels, cases))
	}
	for _, f := range result.Funcs {
		got = append(got, fmt.Sprintf("func %s %d-%d", f.Function, f.Start, f.End))
	}
	want := []string{
		"select@5 [in@a.go:3 out@a.go:3] [in@a.go:3 out@a.go:3 -]", "send@7 [out@a.go:3] []", "recv@12 [] []",
		"func F 3-13", "func F 4-11", "func G 14-14",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// callSummary renders a call site: "kind@line callee [index:classes or param=…; …] in caller".
func callSummary(c callSite) string {
	var args []string
	for _, a := range c.Args {
		if a.Param != nil {
			args = append(args, fmt.Sprintf("%d:param=%s", a.Index, paramText(*a.Param)))
		} else {
			args = append(args, fmt.Sprintf("%d:%s", a.Index, strings.Join(a.Channels, ",")))
		}
	}
	return fmt.Sprintf("%s@%d %s [%s] in %s", c.Kind, c.Line, c.Callee, strings.Join(args, "; "), c.Caller)
}

func TestCallSites(t *testing.T) {
	result := waitResultOfSource(t, `package p
type pool struct{ jobs chan int }
type runner interface{ run(c chan int) }
func worker(id int, in <-chan int, out chan<- int) { out <- <-in }
func (p *pool) serve(c chan int, extra ...chan int) { c <- <-p.jobs }
func fan(in chan int) {
	go worker(1, in, make(chan int))
}
func F(r runner, p *pool) {
	a, b := make(chan int), make(chan int)
	go worker(0,
		a, b)
	worker(2, b,
		a)
	p.serve(a, make(chan int))
	defer func(c chan int) { <-c }(a)
	func(c chan int) {
		<-c
	}(
		b)
	fan(a)
	w := worker
	go w(3, b, a)
	r.run(a)
	noChannels(1)
	spread([]chan int{a, b})
}
func noChannels(n int) {}
func spread(cs []chan int) {
	for _, c := range cs {
		close(c)
	}
}
func mixed(in chan int) {
	spread([]chan int{in, make(chan int)})
	x := make(chan int)
	spread([]chan int{in, x})
}`)
	var got []string
	for _, c := range result.Calls {
		if c.File != "a.go" || c.Path != filepath.Join(filepath.Dir(c.Path), "a.go") {
			t.Errorf("call %+v: wrong file or path", c)
		}
		got = append(got, callSummary(c))
	}
	want := []string{
		// A go statement at its keyword's line; a call at its left parenthesis's.
		"go@7 worker@a.go:4:1 [1:param=fan@a.go:6:1#0; 2:] in fan@a.go:6:1",
		"go@11 worker@a.go:4:1 [1:a@a.go:10; 2:b@a.go:10] in F@a.go:9:1",
		"call@13 worker@a.go:4:1 [1:b@a.go:10; 2:a@a.go:10] in F@a.go:9:1",
		// The variadic parameter is joined, not listed.
		"call@15 (*pool).serve@a.go:5:1 [0:a@a.go:10] in F@a.go:9:1",
		"defer@16 F.func@a.go:16:8 [0:a@a.go:10] in F@a.go:9:1",
		"call@19 F.func@a.go:17:2 [0:b@a.go:10] in F@a.go:9:1",
		"call@21 fan@a.go:6:1 [0:a@a.go:10] in F@a.go:9:1",
		// Not listed: calls through a function value or an interface, calls without channel parameters.
		"call@26 spread@a.go:29:1 [0:a@a.go:10,b@a.go:10] in F@a.go:9:1",
		// A slice of the caller's parameter and another channel cannot be resolved: left out.
		"call@35 spread@a.go:29:1 [0:param=mixed@a.go:34:1#0] in mixed@a.go:34:1",
		"call@37 spread@a.go:29:1 [] in mixed@a.go:34:1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	var ids []string
	for _, f := range result.Funcs {
		ids = append(ids, f.ID)
	}
	wantIDs := "worker@a.go:4:1 (*pool).serve@a.go:5:1 fan@a.go:6:1 F@a.go:9:1 F.func@a.go:16:8 F.func@a.go:17:2 noChannels@a.go:28:1 spread@a.go:29:1 mixed@a.go:34:1"
	if strings.Join(ids, " ") != wantIDs {
		t.Errorf("function ids %q, want %q", strings.Join(ids, " "), wantIDs)
	}
}

// The corpus's compactionring kernel: three shards run take(turn, next) on the three
// channels of a ring. take's operations are on its parameters, and each call gives them
// the shard's own pair of ring channels, where merged joins all three.
func TestCompactionRingCallSites(t *testing.T) {
	path := filepath.Join("..", "..", "..", "go-programs", "kernels", "chancycle", "compactionring", "ring_test.go")
	result := waitSitesOf([]string{path})
	if len(result.Errors) > 0 {
		t.Fatalf("errors: %v", result.Errors)
	}
	var got []string
	for _, o := range result.Ops {
		if o.Function == "(*shard).take" {
			got = append(got, opSummary(o))
		}
	}
	for _, c := range result.Calls {
		got = append(got, callSummary(c))
	}
	want := []string{
		"(*shard).take recv@22 turn@ring_test.go:21 [21-25] param=(*shard).take@ring_test.go:21:1#0",
		"(*shard).take send@24 next@ring_test.go:21 [21-25] ~turn@ring_test.go:21 param=(*shard).take@ring_test.go:21:1#1",
		"call@32 (*shard).take@ring_test.go:21:1 [0:bToA@ring_test.go:29; 1:aToC@ring_test.go:29] in TestCompactionRing.func@ring_test.go:31:5",
		"call@36 (*shard).take@ring_test.go:21:1 [0:cToB@ring_test.go:29; 1:bToA@ring_test.go:29] in TestCompactionRing.func@ring_test.go:35:5",
		"call@40 (*shard).take@ring_test.go:21:1 [0:aToC@ring_test.go:29; 1:cToB@ring_test.go:29] in TestCompactionRing.func@ring_test.go:39:5",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
