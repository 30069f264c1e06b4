// Tests of the lock-recording rewrite (locks.go): the exact rewrite of each statement form,
// the operands left alone, lines that never move, composition after perturbation, code that
// type-checks at go 1.12, and a real go 1.12 program whose trace carries the lock logs.
package overlay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/exp/trace"
)

const lockSample = `package sample

import "sync"

const fixed = 1

type store struct {
	mu  sync.Mutex
	rw  sync.RWMutex
	ptr *sync.Mutex
	all []sync.Mutex
	by  map[string]*sync.Mutex
}

func (s *store) forms(l sync.Locker, get func() *sync.Mutex) {
	s.mu.Lock() // first
	s.mu.Unlock()
	s.rw.RLock()
	s.rw.RUnlock()
	(*s.ptr).Lock(); defer s.ptr.Unlock()
	defer (s.rw).RUnlock()
again:
	l.Lock()
	if l != nil { l.Unlock() }
	s.
		mu.Lock()
	goto again
}

func (s *store) skipped(get func() *sync.Mutex, i int) {
	s.by["k"].Lock()
	get().Lock()
	s.all[i].Lock()
	fixed.Lock()
	s.mu.Lock(1)
	go s.mu.Unlock()
	defer s.mu.Lock()
	if s.mu.Lock(); true {}
	f := func() { s.mu.Lock() }
	_ = f
}
`

func TestLockSourceRewritesEachFormOnItsLine(t *testing.T) {
	out, pkg, n, err := lockSource("sample.go", []byte(lockSample), map[string]bool{"fixed": true}, map[string]int{})
	if err != nil {
		t.Fatal(err)
	}
	if pkg != "sample" || n != 11 {
		t.Fatalf("package %q, %d statements rewritten", pkg, n)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "sample.go", out, 0); err != nil {
		t.Fatalf("the rewrite does not parse: %v\n%s", err, out)
	}
	got := strings.Split(string(out), "\n")
	source := strings.Split(lockSample, "\n")
	if len(got) != len(source) {
		t.Fatalf("the rewrite has %d lines, the source %d", len(got), len(source))
	}
	want := map[int]string{
		16: `	if schedlabLockWant("want w", &s.mu, 0) { s.mu.Lock(); schedlabLockOp("got w", &s.mu) } else { s.mu.Lock() } // first`,
		17: `	schedlabLockOp("drop w", &s.mu); s.mu.Unlock()`,
		18: `	if schedlabLockWant("want r", &s.rw, 1) { s.rw.RLock(); schedlabLockOp("got r", &s.rw) } else { s.rw.RLock() }`,
		19: `	schedlabLockOp("drop r", &s.rw); s.rw.RUnlock()`,
		20: `	if schedlabLockWant("want w", &(*s.ptr), 2) { (*s.ptr).Lock(); schedlabLockOp("got w", &(*s.ptr)) } else { (*s.ptr).Lock() }; defer s.ptr.Unlock(); defer schedlabLockLog("drop w", schedlabLockFind("drop w", &s.ptr))`,
		// The user's defer stays; the one after it runs first, just before the Unlock.
		21: `	defer (s.rw).RUnlock(); defer schedlabLockLog("drop r", schedlabLockFind("drop r", &(s.rw)))`,
		// After the label, so a goto logs the want too.
		23: `	if schedlabLockWant("want w", &l, 3) { l.Lock(); schedlabLockOp("got w", &l) } else { l.Lock() }`,
		24: `	if l != nil { schedlabLockOp("drop w", &l); l.Unlock() }`,
		// An operand split over lines is printed on one: the want goes on the first line, the
		// got and the repeated call on the last.
		25: `	if schedlabLockWant("want w", &s.mu, 4) { s.`,
		26: `		mu.Lock(); schedlabLockOp("got w", &s.mu) } else { s.mu.Lock() }`,
		// Inside a function literal: its own statement list.
		39: `	f := func() { if schedlabLockWant("want w", &s.mu, 5) { s.mu.Lock(); schedlabLockOp("got w", &s.mu) } else { s.mu.Lock() } }`,
	}
	for i := range source {
		line := i + 1
		expected, changed := want[line]
		if !changed {
			expected = source[i]
		}
		if got[i] != expected {
			t.Errorf("line %d:\n got  %q\n want %q", line, got[i], expected)
		}
	}
}

func TestLockSourceLeavesCgoFilesAndLockFreeFilesAlone(t *testing.T) {
	out, _, n, err := lockSource("c.go", []byte("package c\n\nimport \"C\"\n\nfunc f(mu interface{ Lock() }) { mu.Lock() }\n"), nil, map[string]int{})
	if err != nil || out != nil || n != 0 {
		t.Fatalf("cgo file rewritten: %v %q %d", err, out, n)
	}
	src := "package c\n\nfunc f(ch chan int) { ch <- 1 }\n"
	out, _, n, err = lockSource("c.go", []byte(src), nil, map[string]int{})
	if err != nil || string(out) != src || n != 0 {
		t.Fatalf("lock-free file changed: %v %q %d", err, out, n)
	}
}

// Perturbation goes first: its points are those of the source alone, lines do not move,
// and the got is logged between the Lock and the perturbation point after it.
func TestLockRecordingComposesAfterPerturbation(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sample.go")
	if err := os.WriteFile(file, []byte(perturbSample), 0o644); err != nil {
		t.Fatal(err)
	}
	perturbed, err := perturbFiles(filepath.Join(dir, "perturb"), "", []string{file})
	if err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	data, _ := json.Marshal(map[string]interface{}{"Replace": perturbed.Replace})
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		t.Fatal(err)
	}
	locked, err := LockFiles(filepath.Join(dir, "locks"), overlay, []string{file}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if locked.Statements != 2 {
		t.Fatalf("%d lock statements", locked.Statements)
	}
	// Both runtimes are in the overlay (the locks', with its budget for ordinary and -race
	// builds), and the final copy is the locks pass's.
	for _, base := range []string{"zz_schedlab_perturb.go", "zz_schedlab_locks.go", "zz_schedlab_locks_budget.go", "zz_schedlab_locks_budget_race.go"} {
		if _, ok := locked.Replace[filepath.Join(dir, base)]; !ok {
			t.Fatalf("no %s in %v", base, locked.Replace)
		}
	}
	out, err := os.ReadFile(locked.Replace[file])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) != strings.Count(perturbSample, "\n")+1 {
		t.Fatalf("%d lines", len(lines))
	}
	if lines[11] != `	if schedlabLockWant("want w", &b.mu, 0) { b.mu.Lock(); schedlabLockOp("got w", &b.mu) } else { b.mu.Lock() }; schedlabPerturb(0) // first` {
		t.Fatalf("line 12: %q", lines[11])
	}
	if lines[13] != `	schedlabLockOp("drop w", &b.mu); b.mu.Unlock(); schedlabPerturb(1)` {
		t.Fatalf("line 14: %q", lines[13])
	}
	// Every perturbation point is still on its line.
	for _, p := range perturbed.Points {
		if !strings.Contains(lines[p.Line-1], fmt.Sprintf("schedlabPerturb(%d)", p.ID)) {
			t.Fatalf("point %d is not on line %d: %q", p.ID, p.Line, lines[p.Line-1])
		}
	}
}

// The copies are built at the user module's language version, which may be as old as go 1.12.
func TestLockCodeTypeChecksAtGo112(t *testing.T) {
	out, _, _, err := lockSource("sample.go", []byte(lockSample), map[string]bool{"fixed": true}, map[string]int{})
	if err != nil {
		t.Fatal(err)
	}
	// Only the function of rewritten forms: the skipped ones are not valid Go on purpose.
	valid := string(out[:strings.Index(string(out), "func (s *store) skipped")])
	fset := token.NewFileSet()
	var files []*ast.File
	// The runtime with one of its budget files (a type check applies no build constraint).
	sources := map[string]string{"sample.go": valid, "rt.go": lockRuntime("sample", 6)}
	for _, added := range lockRuntimeFiles("sample", 6, 100) {
		if added.suffix == "_budget" {
			sources["budget.go"] = added.source
		}
	}
	for name, src := range sources {
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
}

// lockProgram exercises what the runtime must resolve: distinct mutexes, a read lock,
// embedded mutexes (value, pointer, interface), a deferred unlock evaluated at the defer, a
// user type with its own Lock, a nil interface, and a lock held in a map (not recorded).
const lockProgram = `package main

import (
	"fmt"
	"os"
	"reflect"
	"runtime/trace"
	"sync"
)

type counter struct {
	sync.Mutex
	n int
}

type viaPointer struct{ *sync.RWMutex }

type viaLocker struct{ sync.Locker }

type own struct{ sync.Mutex }

func (o *own) Lock() { o.Mutex.Lock() }

type ticket struct{ mu *sync.Mutex }

func (t ticket) Unlock() error { t.mu.Unlock(); return nil }

func id(name string, p interface{}) {
	fmt.Printf("%s %x\n", name, reflect.ValueOf(p).Pointer())
}

func deferred(mu *sync.Mutex, other *sync.Mutex) {
	mu.Lock()
	defer mu.Unlock()
	mu = other // the deferred unlock keeps the receiver it had at the defer
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	trace.Start(f)
	var a, b sync.Mutex
	var rw sync.RWMutex
	var c counter
	vp := viaPointer{new(sync.RWMutex)}
	vl := &viaLocker{new(sync.Mutex)}
	var o own
	tk := ticket{new(sync.Mutex)}
	m := map[string]*sync.Mutex{"k": new(sync.Mutex)}
	id("a", &a)
	id("b", &b)
	id("rw", &rw)
	id("counter", &c.Mutex)
	id("viaPointer", vp.RWMutex)
	id("viaLocker", vl.Locker)
	id("own", &o.Mutex)
	id("ticket", tk.mu)
	a.Lock()
	b.Lock()
	b.Unlock()
	a.Unlock()
	rw.RLock()
	rw.RUnlock()
	c.Lock()
	c.n++
	c.Unlock()
	vp.RLock()
	vp.RUnlock()
	vl.Lock()
	vl.Unlock()
	o.Lock()
	o.Unlock()
	deferred(&a, &b)
	tk.mu.Lock()
	func() { defer tk.Unlock() }()
	var nothing sync.Locker
	func() {
		defer func() { recover() }()
		nothing.Lock()
	}()
	m["k"].Lock()
	m["k"].Unlock()
	trace.Stop()
	f.Close()
}
`

// tracedLockLog is one schedlab.lock user log of a trace, with the line of its top user frame.
type tracedLockLog struct {
	message string
	line    int
}

// readLockLogs returns the schedlab.lock logs of a trace, in order, with the main.go line
// of the first frame outside the injected functions.
func readLockLogs(t *testing.T, path string) []tracedLockLog {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	reader, err := trace.NewReader(bufio.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	var logs []tracedLockLog
	for {
		ev, err := reader.ReadEvent()
		if err != nil {
			break
		}
		if ev.Kind() != trace.EventLog || ev.Log().Category != LockLogCategory {
			continue
		}
		line := 0
		for frame := range ev.Stack().Frames() {
			if !strings.Contains(frame.Func, ".schedlab") && !strings.HasPrefix(frame.Func, "runtime/trace.") {
				line = int(frame.Line)
				break
			}
		}
		logs = append(logs, tracedLockLog{ev.Log().Message, line})
	}
	return logs
}

func TestLockRecordingTracesAGo112Program(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	tracePath, out := tracedLockProgram(t, "locks", lockProgram, 0)
	name := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		name[fields[1]] = fields[0]
	}
	var got []string
	for _, log := range readLockLogs(t, tracePath) {
		fields := strings.Fields(log.message)
		if len(fields) != 3 || name[fields[2]] == "" {
			t.Fatalf("log %q names no mutex of the program (%v)", log.message, name)
		}
		got = append(got, fmt.Sprintf("%d %s %s %s", log.line, fields[0], fields[1], name[fields[2]]))
	}
	want := []string{
		"60 want w a", "60 got w a", "61 want w b", "61 got w b", "62 drop w b", "63 drop w a",
		"64 want r rw", "64 got r rw", "65 drop r rw",
		"66 want w counter", "66 got w counter", "68 drop w counter",
		"69 want r viaPointer", "69 got r viaPointer", "70 drop r viaPointer",
		"71 want w viaLocker", "71 got w viaLocker", "72 drop w viaLocker",
		// own's Lock is its own: the sync call inside it logs; its Unlock is promoted.
		"22 want w own", "22 got w own", "74 drop w own",
		// deferred: the drop runs at the closing brace, on the mutex the defer saw.
		"33 want w a", "33 got w a", "36 drop w a",
		"76 want w ticket", "76 got w ticket",
		// ticket's Unlock is the user's (it returns an error): the sync call inside logs.
		// The nil Locker (line 81) and the map's mutex (83, 84) log nothing.
		"26 drop w ticket",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lock logs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(name) != 8 {
		t.Fatalf("the program's 8 mutexes do not have distinct addresses: %v", name)
	}
}

// budgetProgram takes one mutex ten times in a loop, a read lock five times before
// dropping it five times, another mutex once after them, and a last one it never drops.
const budgetProgram = `package main

import (
	"os"
	"runtime/trace"
	"sync"
)

func main() {
	f, _ := os.Create(os.Args[1])
	trace.Start(f)
	var loop, once, held sync.Mutex
	var rw sync.RWMutex
	for i := 0; i < 10; i++ {
		loop.Lock()
		loop.Unlock()
	}
	for i := 0; i < 5; i++ {
		rw.RLock()
	}
	for i := 0; i < 5; i++ {
		rw.RUnlock()
	}
	once.Lock()
	once.Unlock()
	held.Lock()
	trace.Stop()
	f.Close()
}
`

// With a budget, a statement logs its want and got in its first executions only, a drop
// is logged only while its mutex has a logged hold (the read lock's first three drops take
// its three), a hold never dropped stays logged, and a statement with budget left logs as
// without one.
func TestLockBudgetBoundsEachStatementsWantsAndGots(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	tracePath, _ := tracedLockProgram(t, "budget", budgetProgram, 3)
	count := map[string]int{}
	for _, log := range readLockLogs(t, tracePath) {
		count[fmt.Sprintf("%d %s", log.line, strings.Join(strings.Fields(log.message)[:2], " "))]++
	}
	want := map[string]int{
		"15 want w": 3, "15 got w": 3, "16 drop w": 3,
		"19 want r": 3, "19 got r": 3, "22 drop r": 3,
		"24 want w": 1, "24 got w": 1, "25 drop w": 1,
		"26 want w": 1, "26 got w": 1,
	}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Fatalf("lock logs per line and op: %v, want %v", count, want)
	}
}

// A -race build of the same rewrite keeps the statements' budget and logs every drop (no
// count per mutex: it would be synchronisation the race detector sees).
func TestLockBudgetInRaceBuildsLogsEveryDrop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	tracePath, _ := tracedLockProgram(t, "budgetrace", budgetProgram, 3, "-race")
	count := map[string]int{}
	for _, log := range readLockLogs(t, tracePath) {
		count[fmt.Sprintf("%d %s", log.line, strings.Join(strings.Fields(log.message)[:2], " "))]++
	}
	want := map[string]int{
		"15 want w": 3, "15 got w": 3, "16 drop w": 10,
		"19 want r": 3, "19 got r": 3, "22 drop r": 5,
		"24 want w": 1, "24 got w": 1, "25 drop w": 1,
		"26 want w": 1, "26 got w": 1,
	}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Fatalf("lock logs per line and op: %v, want %v", count, want)
	}
}

// racyProgram: two goroutines write x with nothing between them but one Lock statement
// (take) they both execute, each on a mutex of its own.
const racyProgram = `package main

import (
	"os"
	"runtime/trace"
	"sync"
)

var x int

func take(mu *sync.Mutex) {
	mu.Lock()
	mu.Unlock()
}

func main() {
	f, _ := os.Create(os.Args[1])
	trace.Start(f)
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { x = 1; take(&a); wg.Done() }()
	go func() { take(&b); x = 2; wg.Done() }()
	wg.Wait()
	trace.Stop()
	f.Close()
}
`

// The budget's counter of take's Lock statement is shared by both goroutines: an atomic
// one would order them for the race detector and hide their race on x.
func TestLockBudgetHidesNoRace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/racy\n\ngo 1.12\n", "main.go": racyProgram} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	result, err := LockFiles(filepath.Join(dir, "locks"), "", []string{filepath.Join(dir, "main.go")}, LockLogBudget)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]interface{}{"Replace": result.Replace})
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-race", "-overlay", overlay, "-o", "prog", ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, _ := exec.Command(filepath.Join(dir, "prog"), filepath.Join(dir, "run.trace")).CombinedOutput()
	if !strings.Contains(string(out), "WARNING: DATA RACE") || !strings.Contains(string(out), "main.main.func") {
		t.Fatalf("the race on x is not reported:\n%s", out)
	}
	if strings.Contains(string(out), "schedlabLock") {
		t.Fatalf("a race is reported in the lock recording's own code:\n%s", out)
	}
}

// collect-perturb -locks makes in one call the overlay the two calls make one after the other.
func TestPerturbWithLocksIsBothPasses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sample.go")
	if err := os.WriteFile(file, []byte(perturbSample), 0o644); err != nil {
		t.Fatal(err)
	}
	perturbed, err := perturbFiles(filepath.Join(dir, "one"), "", []string{file})
	if err != nil {
		t.Fatal(err)
	}
	onlyPerturbed := fmt.Sprint(perturbed.Replace)
	together, err := lockPerturbed(filepath.Join(dir, "one"), perturbed, []string{file}, LockLogBudget)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(perturbed.Replace) != onlyPerturbed {
		t.Fatalf("the perturbed overlay changed: %v", perturbed.Replace)
	}
	overlay := filepath.Join(dir, "overlay.json")
	data, _ := json.Marshal(map[string]interface{}{"Replace": perturbed.Replace})
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		t.Fatal(err)
	}
	apart, err := LockFiles(filepath.Join(dir, "two"), overlay, []string{file}, LockLogBudget)
	if err != nil {
		t.Fatal(err)
	}
	if together.Statements != apart.Statements || len(together.Replace) != len(apart.Replace) {
		t.Fatalf("together %d statements %v, apart %d %v", together.Statements, together.Replace, apart.Statements, apart.Replace)
	}
	for original, copy := range apart.Replace {
		a, errA := os.ReadFile(copy)
		b, errB := os.ReadFile(together.Replace[original])
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Fatalf("%s differs (%v, %v)", original, errA, errB)
		}
	}
}

// tracedLockProgram writes program as the main package of a go 1.12 module named after
// module, builds it with lock recording (budget as collect-locks -budget) and buildFlags,
// runs it with the trace path as its argument and returns the trace and the program's stdout.
func tracedLockProgram(t *testing.T, module, program string, budget int, buildFlags ...string) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/" + module + "\n\ngo 1.12\n", "main.go": program} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	result, err := LockFiles(filepath.Join(dir, "locks"), "", []string{filepath.Join(dir, "main.go")}, budget)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]interface{}{"Replace": result.Replace})
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", append(append([]string{"build"}, buildFlags...), "-overlay", overlay, "-o", "prog", ".")...)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tracePath := filepath.Join(dir, "run.trace")
	out, err := exec.Command(filepath.Join(dir, "prog"), tracePath).Output()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return tracePath, out
}

// A reflect MethodByName whose name the linker cannot see keeps every exported method of
// every type in the binary: each one in the runtime takes a constant.
func TestLockRuntimeLooksMethodsUpByConstantNames(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "rt.go", lockRuntime("sample", 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "MethodByName" || sel.Sel.Name == "Method") {
			calls++
			if lit, ok := call.Args[0].(*ast.BasicLit); !ok || lit.Kind != token.STRING {
				t.Errorf("%s called with a name that is not a constant", sel.Sel.Name)
			}
		}
		return true
	})
	if calls != 4 {
		t.Errorf("%d MethodByName calls, want the 4 of schedlabLockMethodByName", calls)
	}
}
