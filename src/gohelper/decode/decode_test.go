// Unit tests of the decoder's parts: lock-op messages, stack strings, injected frames, and
// lock ops held with records while their goroutine is undecided. The whole path (a real
// traced program through decode, ingest and the readers) is tested in
// test/trace/block-stacks.e2e.test.ts.

package decode

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/exp/trace"
)

func TestParseLockOpReadsTheInstrumentationsMessages(t *testing.T) {
	for _, c := range []struct {
		message string
		want    lockOp
	}{
		{"want w c000012345", lockOp{"want", "w", "c000012345"}},
		{"got r 5cd5d0", lockOp{"got", "r", "5cd5d0"}},
		{"drop w 0xc000012345", lockOp{"drop", "w", "0xc000012345"}},
	} {
		got, ok := parseLockOp(c.message)
		if !ok || got != c.want {
			t.Errorf("parseLockOp(%q) = %+v, %v; want %+v", c.message, got, ok, c.want)
		}
	}
	for _, message := range []string{"", "want w", "want w c0 extra", "wait w c0", "want x c0", "want w C0", "want w 0x", "want w not-hex", "want  w c0", "want\tw\tc0"} {
		if op, ok := parseLockOp(message); ok {
			t.Errorf("parseLockOp(%q) = %+v, want it dropped", message, op)
		}
	}
}

const testGoroot = "/usr/local/go"

func std(fn, file string, line uint64) trace.StackFrame {
	return trace.StackFrame{Func: fn, File: testGoroot + "/src/" + file, Line: line}
}

func user(fn, file string, line uint64) trace.StackFrame {
	return trace.StackFrame{Func: fn, File: "/home/me/prog/" + file, Line: line}
}

func TestStackStringsNameTheAPIAndTheUserFrames(t *testing.T) {
	d := &decoder{goroot: testGoroot}
	mutexWait := []trace.StackFrame{
		std("runtime.gopark", "runtime/proc.go", 460),
		std("sync.runtime_SemacquireMutex", "runtime/sema.go", 95),
		std("internal/sync.(*Mutex).lockSlow", "internal/sync/mutex.go", 149),
		std("sync.(*Mutex).Lock", "sync/mutex.go", 46),
		user("example.com/m/store.(*Cache).Get", "cache.go", 31),
		std("sync.(*Once).Do", "sync/once.go", 78), // standard library between user frames is not kept
		user("main.main", "main.go", 12),
		std("runtime.main", "runtime/proc.go", 285),
	}
	block, log := d.stackStrings(mutexWait)
	if want := "sync.(*Mutex).Lock;example.com/m/store.(*Cache).Get cache.go:31;main.main main.go:12"; block != want {
		t.Errorf("block stack = %q, want %q", block, want)
	}
	if want := ";example.com/m/store.(*Cache).Get cache.go:31;main.main main.go:12"; log != want {
		t.Errorf("log stack = %q, want %q", log, want)
	}

	// Injected frames are skipped: the API is what the injected code called, the first user
	// frame the line that called the injected code.
	perturbed := []trace.StackFrame{
		std("runtime.gopark", "runtime/proc.go", 460),
		std("time.Sleep", "runtime/time.go", 338),
		user("example.com/m/store.schedlabPerturb", "zz_schedlab_perturb.go", 20),
		user("example.com/m/store.schedlabPerturb.func1", "zz_schedlab_perturb.go", 22),
		user("example.com/m/store.(*Cache).Put", "cache.go", 40),
	}
	if block, _ := d.stackStrings(perturbed); block != "time.Sleep;example.com/m/store.(*Cache).Put cache.go:40" {
		t.Errorf("perturbed block stack = %q", block)
	}
	logged := []trace.StackFrame{
		std("runtime/trace.Log", "runtime/trace/annotation.go", 159),
		user("example.com/m/store.schedlabLockOp", "zz_schedlab_locks.go", 9),
		user("example.com/m/store.(*Cache).Put", "cache.go", 41),
		user("main.schedlabHarnessRun", "zz_schedlab_harness.go", 50),
	}
	if _, log := d.stackStrings(logged); log != ";example.com/m/store.(*Cache).Put cache.go:41" {
		t.Errorf("lock op stack = %q", log)
	}

	// The top frame is the user's: no API. Only twelve user frames are kept.
	var recursive []trace.StackFrame
	for i := 0; i < 20; i++ {
		recursive = append(recursive, user("main.walk", "main.go", uint64(10+i)))
	}
	block, _ = d.stackStrings(recursive)
	if frames := strings.Split(block, ";"); frames[0] != "" || len(frames) != 1+maxStackUserFrames || frames[1] != "main.walk main.go:10" {
		t.Errorf("recursive block stack = %q", block)
	}

	// No user frame: the API is the outermost standard-library frame; a lock op has no stack.
	system := []trace.StackFrame{std("runtime.gopark", "runtime/proc.go", 460), std("net/http.(*Server).Serve", "net/http/server.go", 3300)}
	if block, log := d.stackStrings(system); block != "net/http.(*Server).Serve" || log != "" {
		t.Errorf("system stacks = %q, %q", block, log)
	}
	if block, log := d.stackStrings(nil); block != "" || log != "" {
		t.Errorf("empty stacks = %q, %q", block, log)
	}
}

func TestInjectedFramesAreNeverUserFrames(t *testing.T) {
	d := &decoder{goroot: testGoroot}
	for _, f := range []trace.StackFrame{
		user("main.schedlabHarnessSettle", "zz_schedlab_harness.go", 1),
		user("main.main", "zz_schedlab_harness.go", 1),
		user("example.com/m/pkg.schedlabPerturb", "zz.go", 1),
		user("example.com/m/pkg.schedlabLockOp.func1", "zz.go", 1),
		user("pkg.(*T).schedlabRecord", "zz.go", 1),
		user("example.com/m/pkg_test.TestMain", "zz_schedlab_agent_test.go", 40),
		user("example.com/m/pkg.schedlabAgentProbe", "zz_schedlab_agent_test.go", 1),
	} {
		if d.isUserFrame(f) {
			t.Errorf("%s (%s) counts as a user frame", f.Func, f.File)
		}
	}
	for _, f := range []trace.StackFrame{
		user("main.main", "main.go", 1),
		user("schedlab.dev/fixtures/x.F", "x.go", 1),
		user("example.com/schedlab/pkg.F", "pkg.go", 1),
	} {
		if !d.isUserFrame(f) {
			t.Errorf("%s (%s) does not count as a user frame", f.Func, f.File)
		}
	}
}

func TestMapFuncNamesRenamedEntriesAsTheUserWroteThem(t *testing.T) {
	for name, want := range map[string]string{
		"main.schedlabUserMain":                             "main.main",
		"main.schedlabUserMain.func1":                       "main.main.func1",
		"example.com/m/pkg_test.schedlabUserTestMain":       "example.com/m/pkg_test.TestMain",
		"example.com/m/pkg.schedlabUserTestMain.func2":      "example.com/m/pkg.TestMain.func2",
		"gopkg.in/yaml%2ev3.schedlabUserTestMain":           "gopkg.in/yaml%2ev3.TestMain",
		"example.com/schedlabUserTestMain/pkg.F":            "example.com/schedlabUserTestMain/pkg.F",
		"example.com/m/pkg.(*T).schedlabUserTestMainHelper": "example.com/m/pkg.(*T).schedlabUserTestMainHelper",
		"example.com/m/pkg.TestMain":                        "example.com/m/pkg.TestMain",
	} {
		if got := mapFunc(name); got != want {
			t.Errorf("mapFunc(%q) = %q, want %q", name, got, want)
		}
	}
	// The renamed TestMain is a user frame again, and a named root.
	d := &decoder{goroot: testGoroot}
	f := user(mapFunc("example.com/m/pkg_test.schedlabUserTestMain"), "main_test.go", 12)
	if !d.isUserFrame(f) || namedRootOf(f) != "TestMain" {
		t.Errorf("%s: user frame %v, named root %q", f.Func, d.isUserFrame(f), namedRootOf(f))
	}
}

// newTestDecoder writes to a buffer; goroutine 1 is a decided user goroutine, 2 undecided.
func newTestDecoder(out *bytes.Buffer) *decoder {
	d := &decoder{
		out:        bufio.NewWriter(out),
		mode:       "main",
		goroutines: map[trace.GoID]*goroutineInfo{},
		strings:    map[string]int{"": 0},
		waiting:    map[trace.GoID][]*goroutineInfo{},
	}
	d.goroutines[1] = &goroutineInfo{id: 1, class: classUser}
	d.goroutines[2] = &goroutineInfo{id: 2, class: classUndecided}
	d.undecided = 1
	return d
}

// lineKinds names the record and lock-op lines written, skipping interned strings.
func lineKinds(out *bytes.Buffer) []string {
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		fields := strings.Split(line, "\t")
		switch fields[0] {
		case "S":
		case "L":
			kinds = append(kinds, "L "+fields[1]+" g"+fields[5])
		default:
			kinds = append(kinds, recordKindNames[mustAtoi(fields[0])]+" g"+fields[2])
		}
	}
	return kinds
}

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

func TestLockOpsOfAnUndecidedGoroutineWaitInOrderWithRecords(t *testing.T) {
	for _, c := range []struct {
		class goroutineClass
		want  []string
	}{
		{classUser, []string{"GoStart g1", "L want g2", "GoBlock g1", "L got g1"}},
		{classSystem, []string{"GoStart g1", "GoBlock g1", "L got g1"}},
	} {
		var out bytes.Buffer
		d := newTestDecoder(&out)
		d.record(kindGoStart, 10, d.goroutines[1], trace.NoGoroutine, "", "")
		d.emit(d.goroutines[2], pendingRecord{time: 20, g: 2, actor: 2, site: "main.f main.go:3", stack: ";main.f main.go:3", lock: &lockOp{"want", "w", "c0"}})
		d.emit(d.goroutines[1], pendingRecord{kind: kindGoBlock, time: 30, g: 1, actor: 1, reason: "sync", stack: "sync.(*Mutex).Lock"})
		d.emit(d.goroutines[1], pendingRecord{time: 40, g: 1, actor: 1, lock: &lockOp{"got", "w", "c0"}})
		if len(d.pending) != 3 {
			t.Fatalf("held %d lines while goroutine 2 is undecided, want 3", len(d.pending))
		}
		d.decide(d.goroutines[2], c.class)
		if err := d.out.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := lineKinds(&out); strings.Join(got, ", ") != strings.Join(c.want, ", ") {
			t.Errorf("decided %v: lines %v, want %v", c.class, got, c.want)
		}
		if d.seq != 2 {
			t.Errorf("seq = %d after two records, want 2 (lock ops are not records)", d.seq)
		}
	}
}

func TestWriteLockOpLine(t *testing.T) {
	var out bytes.Buffer
	d := newTestDecoder(&out)
	d.write(pendingRecord{time: 20, g: 1, actor: 1, site: "main.f main.go:3", stack: ";main.f main.go:3", lock: &lockOp{"drop", "r", "c000012345"}})
	d.write(pendingRecord{kind: kindGoBlock, time: 30, g: 1, actor: 1, reason: "sync", site: "main.f main.go:3", stack: "sync.(*RWMutex).RLock;main.f main.go:3"})
	if err := d.out.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "S\t1\tmain.f main.go:3\nS\t2\t;main.f main.go:3\nL\tdrop\tr\tc000012345\t20\t1\t1\t2\n" +
		"S\t3\tsync\nS\t4\tsync.(*RWMutex).RLock;main.f main.go:3\n2\t30\t1\t1\t3\t1\t4\n"
	if out.String() != want {
		t.Errorf("stream:\n%s\nwant:\n%s", out.String(), want)
	}
}
