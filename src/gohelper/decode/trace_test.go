// The decoder on real traces: the programs under testdata (a channel handoff, a mutex
// contended under lock recording, a test binary) were built and traced once; their traces
// are committed as testdata/*.trace and decoded here, and the same checks run on traces
// made now with the toolchain on PATH (skipped with -short), so a trace format the parser
// no longer reads fails too. `go test ./decode -run TestDecode -update` rewrites the
// committed traces after a program changes.
package decode

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"schedlab.dev/gohelper/overlay"
)

var update = flag.Bool("update", false, "rebuild the testdata programs and rewrite their committed traces")

// tracedProgram is a program under testdata, how it is traced and what its decoded stream must show.
type tracedProgram struct {
	dir   string // under testdata; its trace is testdata/<dir>.trace
	test  bool   // a test binary traced with go test -trace (else a main package that traces itself)
	locks bool   // built with the lock-recording overlay
	mode  string // decode's -mode
	check func(t *testing.T, s *decodedStream)
}

var tracedPrograms = []tracedProgram{
	{dir: "handoff", mode: "auto", check: checkHandoff},
	{dir: "locked", locks: true, mode: "main", check: checkLocked},
	{dir: "testbinary", test: true, mode: "auto", check: checkTestBinary},
	{dir: "lockloop", locks: true, mode: "main", check: checkLockLoop},
}

func TestDecodeCommittedTraces(t *testing.T) {
	for _, p := range tracedPrograms {
		t.Run(p.dir, func(t *testing.T) {
			path := filepath.Join("testdata", p.dir+".trace")
			if *update {
				fresh := traceProgram(t, p)
				data, err := os.ReadFile(fresh)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// Decoded without a GOROOT (the trace's is another machine's): the package paths
			// tell the standard library.
			p.check(t, decodeFile(t, path, p.mode, ""))
		})
	}
}

func TestDecodeFreshTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs programs")
	}
	goroot := goEnv(t, "GOROOT")
	for _, p := range tracedPrograms {
		t.Run(p.dir, func(t *testing.T) {
			// Decoded as collect decodes: the frames under the GOROOT are the standard library.
			p.check(t, decodeFile(t, traceProgram(t, p), p.mode, goroot))
		})
	}
}

func TestDecodeReportsWhatIsNotATrace(t *testing.T) {
	for _, c := range []struct {
		input  []byte
		status string
	}{
		{[]byte("not a trace at all"), "error"},
		{nil, "error"},
	} {
		var out bytes.Buffer
		if err := decodeStream(bytes.NewReader(c.input), &out, options{mode: "auto"}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Split(out.String(), "\t"); got[0] != "Z" || got[1] != c.status {
			t.Errorf("%q: stream %q, want a Z %s line", c.input, out.String(), c.status)
		}
	}
	// A committed trace cut short: the parser stops inside a batch, and the stream says so.
	data, err := os.ReadFile(filepath.Join("testdata", "handoff.trace"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := decodeStream(bytes.NewReader(data[:len(data)*3/4]), &out, options{mode: "auto"}); err != nil {
		t.Fatal(err)
	}
	if s := parseStream(t, out.String()); s.status != "truncated" {
		t.Errorf("a cut trace has status %q (%s), want truncated", s.status, s.message)
	}
}

// traceProgram builds the program in a temporary module, as collect builds (no -trimpath),
// and runs it, returning its trace.
func traceProgram(t *testing.T, p tracedProgram) string {
	t.Helper()
	dir := t.TempDir()
	source, err := filepath.Abs(filepath.Join("testdata", p.dir))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(source)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(source, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.Join(dir, e.Name()))
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/"+p.dir+"\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tracePath := filepath.Join(dir, "run.trace")
	var args []string
	if p.test {
		args = append(args, "test", "-count=1", "-trace", tracePath)
	} else {
		args = append(args, "build", "-o", "prog")
	}
	if p.locks {
		args = append(args, "-overlay", lockOverlay(t, dir, files))
	}
	run(t, dir, "go", append(args, ".")...)
	if !p.test {
		run(t, dir, filepath.Join(dir, "prog"), tracePath)
	}
	return tracePath
}

// lockOverlay writes the lock-recording rewrite of files and returns its overlay file.
func lockOverlay(t *testing.T, dir string, files []string) string {
	t.Helper()
	result, err := overlay.LockFiles(filepath.Join(dir, "locks"), "", files, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(map[string]any{"Replace": result.Replace})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

func decodeFile(t *testing.T, path, mode, goroot string) *decodedStream {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	filter := entryFilter{drop: defaultDrop, keep: defaultKeep}
	if err := decodeStream(f, &out, options{mode: mode, filter: filter, goroot: goroot}); err != nil {
		t.Fatal(err)
	}
	s := parseStream(t, out.String())
	if s.status != "ok" {
		t.Fatalf("%s decoded with status %s: %s", path, s.status, s.message)
	}
	return s
}

// decodedStream is the decoder's line stream read back, strings resolved.
type decodedStream struct {
	records    []decodedRecord // records and lock ops, in stream order
	goroutines map[int64]decodedGoroutine
	order      []int64 // goroutine ids in G-line order
	status     string
	message    string
}

// decodedRecord is a record line, or a lock op line (kind "L").
type decodedRecord struct {
	kind     string
	time     int64
	g, actor int64
	reason   string
	site     string
	stack    string
	phase    string // lock ops: want, got, drop
	lockMode string // lock ops: w or r
	lock     string // lock ops: the mutex's address
}

type decodedGoroutine struct {
	parent               int64
	root, pre, ordinal   int
	entry, refined, site string
	siteKey              string
}

// parseStream reads the stream, checking what holds of every one: strings are defined
// before use, times never go back, records name goroutines of the G table, the Z line counts
// the records.
func parseStream(t *testing.T, text string) *decodedStream {
	t.Helper()
	s := &decodedStream{goroutines: map[int64]decodedGoroutine{}}
	strs := map[string]string{"0": ""}
	str := func(id string) string {
		v, ok := strs[id]
		if !ok {
			t.Fatalf("string %s used before its S line", id)
		}
		return v
	}
	number := func(field string) int64 {
		n, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			t.Fatalf("field %q is not a number", field)
		}
		return n
	}
	records := 0
	lastTime := int64(0)
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		f := strings.Split(line, "\t")
		switch f[0] {
		case "S":
			strs[f[1]] = f[2]
		case "G":
			g := decodedGoroutine{parent: number(f[2]), root: int(number(f[3]))}
			if g.root != 3 {
				g.pre, g.ordinal = int(number(f[4])), int(number(f[5]))
				g.entry, g.refined, g.site, g.siteKey = f[6], f[7], f[8], f[9]
			} else {
				g.entry = f[6]
			}
			s.goroutines[number(f[1])] = g
			s.order = append(s.order, number(f[1]))
		case "L":
			r := decodedRecord{kind: "L", phase: f[1], lockMode: f[2], lock: f[3], time: number(f[4]), g: number(f[5]), site: str(f[6]), stack: str(f[7])}
			r.actor = r.g
			s.records = append(s.records, r)
		case "Z":
			s.status, s.message = f[1], f[4]
			if n := number(f[3]); n != int64(records) {
				t.Errorf("Z counts %d records, the stream has %d", n, records)
			}
		default:
			kind := number(f[0])
			if kind < 0 || kind >= int64(recordKindCount) {
				t.Fatalf("line %q has no record kind", line)
			}
			s.records = append(s.records, decodedRecord{kind: recordKind(kind).String(), time: number(f[1]), g: number(f[2]), actor: number(f[3]),
				reason: str(f[4]), site: str(f[5]), stack: str(f[6])})
			records++
		}
		if n := len(s.records); n > 0 && f[0] != "S" && f[0] != "G" && f[0] != "Z" {
			if r := s.records[n-1]; r.time < lastTime {
				t.Errorf("time goes back at %q", line)
			} else {
				lastTime = r.time
			}
		}
	}
	for _, r := range s.records {
		if _, ok := s.goroutines[r.g]; !ok {
			t.Errorf("record %+v names goroutine %d, not in the G table", r, r.g)
		}
		if _, ok := s.goroutines[r.actor]; r.actor != -1 && !ok {
			t.Errorf("record %+v names actor %d, not in the G table", r, r.actor)
		}
	}
	return s
}

// of is the records of goroutine g, lock ops included.
func (s *decodedStream) of(g int64) []decodedRecord {
	var out []decodedRecord
	for _, r := range s.records {
		if r.g == g {
			out = append(out, r)
		}
	}
	return out
}

// byEntry is the one goroutine with this entry function.
func (s *decodedStream) byEntry(t *testing.T, entry string) (int64, decodedGoroutine) {
	t.Helper()
	found := int64(-1)
	for _, id := range s.order {
		if s.goroutines[id].entry == entry {
			if found != -1 {
				t.Fatalf("two goroutines with entry %s", entry)
			}
			found = id
		}
	}
	if found == -1 {
		t.Fatalf("no goroutine with entry %s in %v", entry, s.goroutines)
	}
	return found, s.goroutines[found]
}

// expect is one record a goroutine must show; empty fields are not compared.
type expect struct {
	kind, reason, site, stack string
	actor                     *int64
	phase, lockMode           string
}

// hasInOrder checks that records contain the expected ones in this order (others may come between).
func hasInOrder(t *testing.T, what string, records []decodedRecord, want []expect) {
	t.Helper()
	i := 0
	for _, r := range records {
		if i == len(want) {
			break
		}
		w := want[i]
		if r.kind == w.kind && (w.reason == "" || r.reason == w.reason) && (w.site == "" || r.site == w.site) &&
			(w.stack == "" || r.stack == w.stack) && (w.actor == nil || r.actor == *w.actor) &&
			(w.phase == "" || r.phase == w.phase) && (w.lockMode == "" || r.lockMode == w.lockMode) {
			i++
		}
	}
	if i < len(want) {
		var got []string
		for _, r := range records {
			got = append(got, strings.Join([]string{r.kind, r.phase, r.lockMode, strconv.FormatInt(r.actor, 10), r.reason, r.site, r.stack}, " | "))
		}
		t.Errorf("%s: no record like %+v after the first %d expected; records:\n%s", what, want[i], i, strings.Join(got, "\n"))
	}
}

func ref(n int64) *int64 { return &n }

func checkHandoff(t *testing.T, s *decodedStream) {
	if len(s.goroutines) != 2 {
		t.Fatalf("user goroutines %v, want main and the worker (the tracer's, the runtime's are not the user's)", s.goroutines)
	}
	if g := s.goroutines[1]; g.entry != "main.main" || g.root != 1 || g.parent != -1 || g.pre != 1 {
		t.Errorf("goroutine 1 = %+v, want the program root main.main, there before tracing", g)
	}
	worker, w := s.byEntry(t, "main.worker")
	if w.parent != 1 || w.root != 0 || w.pre != 0 || w.ordinal != 0 || w.site != "main.main main.go:29" || w.siteKey != "main.go:29" {
		t.Errorf("worker = %+v, want a child of 1 created at main.go:29", w)
	}
	hasInOrder(t, "worker", s.of(worker), []expect{
		{kind: "GoCreate", actor: ref(1), site: "main.main main.go:29"},
		{kind: "GoStart"},
		{kind: "GoBlock", reason: "chan receive", site: "main.worker main.go:14", stack: "runtime.chanrecv1;main.worker main.go:14"},
		{kind: "GoUnblock", actor: ref(1)},
		{kind: "GoStart"},
		{kind: "GoSched", site: "main.worker main.go:15"},
		{kind: "GoStart"},
		{kind: "GoEnd"},
	})
	hasInOrder(t, "main", s.of(1), []expect{
		{kind: "Initial"},
		{kind: "GoBlock", reason: "sleep", site: "main.main main.go:30", stack: "time.Sleep;main.main main.go:30"},
		{kind: "GoUnblock", actor: ref(-1)},
		{kind: "GoStart"},
	})
	if records := s.of(worker); records[0].kind != "GoCreate" || records[len(records)-1].kind != "GoEnd" {
		t.Errorf("the worker's records run from %s to %s, want GoCreate to GoEnd", records[0].kind, records[len(records)-1].kind)
	}
}

func checkLocked(t *testing.T, s *decodedStream) {
	if len(s.goroutines) != 2 {
		t.Fatalf("user goroutines %v, want main and the holder", s.goroutines)
	}
	holder, h := s.byEntry(t, "main.holder")
	if h.parent != 1 || h.site != "main.main main.go:31" {
		t.Errorf("holder = %+v, want a child of 1 created at main.go:31", h)
	}
	hasInOrder(t, "holder", s.of(holder), []expect{
		{kind: "L", phase: "want", lockMode: "w", site: "main.holder main.go:15", stack: ";main.holder main.go:15"},
		{kind: "L", phase: "got", lockMode: "w", site: "main.holder main.go:15"},
		{kind: "GoBlock", reason: "sleep", site: "main.holder main.go:17"},
		{kind: "L", phase: "drop", lockMode: "w", site: "main.holder main.go:18"},
		{kind: "GoEnd"},
	})
	hasInOrder(t, "main", s.of(1), []expect{
		{kind: "L", phase: "want", lockMode: "w", site: "main.main main.go:33"},
		{kind: "GoBlock", reason: "sync", site: "main.main main.go:33", stack: "sync.(*Mutex).Lock;main.main main.go:33"},
		{kind: "GoUnblock", actor: &holder},
		{kind: "L", phase: "got", lockMode: "w", site: "main.main main.go:33"},
		{kind: "L", phase: "drop", lockMode: "w", site: "main.main main.go:34"},
	})
	// One mutex: every lock op names the same address.
	var addresses []string
	for _, r := range s.records {
		if r.kind == "L" && (len(addresses) == 0 || addresses[0] != r.lock) {
			addresses = append(addresses, r.lock)
		}
	}
	if len(addresses) != 1 {
		t.Errorf("lock ops name the mutexes %v, want one", addresses)
	}
}

// checkLockLoop: a trace logged without a budget is decoded within it (lockBudget): the
// loop's Lock statement keeps its first overlay.LockLogBudget wants and gots and their
// drops, main's own Lock keeps its want and got, and the goroutine blocked at the loop's
// statement, past the budget, keeps its want (at the end: no got followed it).
func checkLockLoop(t *testing.T, s *decodedStream) {
	count := map[string]int{}
	var locks []string
	for _, r := range s.records {
		if r.kind == "L" {
			count[r.phase+" "+r.site]++
			if len(locks) == 0 || locks[0] != r.lock {
				locks = append(locks, r.lock)
			}
		}
	}
	budget := overlay.LockLogBudget
	want := map[string]int{
		"want main.take main.go:15": budget + 1, "got main.take main.go:15": budget, "drop main.take main.go:16": budget,
		"want main.main main.go:31": 1, "got main.main main.go:31": 1,
	}
	if len(count) != len(want) {
		t.Errorf("lock ops per phase and site %v, want %v", count, want)
	}
	for key, n := range want {
		if count[key] != n {
			t.Errorf("%d × %s, want %d (all: %v)", count[key], key, n, count)
		}
	}
	if len(locks) != 1 {
		t.Errorf("lock ops name the mutexes %v, want one", locks)
	}
	blocked, _ := s.byEntry(t, "main.take")
	records := s.of(blocked)
	var last decodedRecord
	for _, r := range records {
		if r.kind == "L" {
			last = r
		}
	}
	if last.phase != "want" || last.site != "main.take main.go:15" {
		t.Errorf("the blocked goroutine's last lock op is %+v, want its want at main.go:15", last)
	}
}

func checkTestBinary(t *testing.T, s *decodedStream) {
	if _, ok := s.goroutines[1]; ok {
		t.Errorf("goroutine 1, the testing driver, is counted as the user's: %+v", s.goroutines[1])
	}
	test, g := s.byEntry(t, "testing.tRunner")
	if g.root != 2 || g.parent != -1 || g.refined != "example.com/testbinary.TestHandoff" || g.site != "" {
		t.Errorf("the test's goroutine = %+v, want a test root refined to TestHandoff", g)
	}
	literal, l := s.byEntry(t, "example.com/testbinary.TestHandoff.func1")
	if l.parent != test || l.site != "example.com/testbinary.TestHandoff handoff_test.go:10" {
		t.Errorf("the literal's goroutine = %+v, want a child of the test created at handoff_test.go:10", l)
	}
	hasInOrder(t, "literal", s.of(literal), []expect{
		{kind: "GoCreate", actor: &test},
		{kind: "GoEnd"},
	})
	if len(s.goroutines) != 2 {
		t.Errorf("user goroutines %v, want the test's and the one it starts", s.goroutines)
	}
}
