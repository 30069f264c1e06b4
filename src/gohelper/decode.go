// Subcommand decode: reads a Go 1.22–1.26 execution trace with golang.org/x/exp/trace and
// streams the user goroutines' scheduling records, with the stack of each GoBlock, and the
// lock operations the instrumentation logged (category "schedlab.lock") to stdout
// (format: docs/events.md).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"

	"golang.org/x/exp/trace"
)

func init() { register("decode", runDecode) }

// recordKind numbers the records the decoder streams to Node. The order is RECORD_KINDS of
// src/trace/types.ts (EVENT_TYPES, then NON_EVENT_KINDS): recordKindNames spells it out, the
// record-kinds subcommand prints it, and test/gohelper checks it against the TypeScript list.
type recordKind int

const (
	kindGoCreate recordKind = iota
	kindGoStart
	kindGoBlock
	kindGoUnblock
	kindGoSched
	kindGoEnd
	kindSyscallEnter
	kindSyscallExit
	kindSyscallUnblock
	kindInitial
	recordKindCount
)

var recordKindNames = [recordKindCount]string{
	"GoCreate", "GoStart", "GoBlock", "GoUnblock", "GoSched", "GoEnd",
	"SyscallEnter", "SyscallExit", "SyscallUnblock", "Initial",
}

func (k recordKind) String() string {
	if k < 0 || k >= recordKindCount {
		return fmt.Sprintf("recordKind(%d)", int(k))
	}
	return recordKindNames[k]
}

func init() {
	register("record-kinds", func(args []string) int {
		if err := json.NewEncoder(os.Stdout).Encode(recordKindNames[:]); err != nil {
			fmt.Fprintln(os.Stderr, "gohelper record-kinds:", err)
			return 1
		}
		return 0
	})
}

// goroutineClass is what the filter decided about a goroutine. Undecided goroutines have
// their records held back until they are decided, at the latest at the end of the
// generation (then they count as system goroutines).
type goroutineClass uint8

const (
	classUndecided goroutineClass = iota
	classUser
	classSystem
)

type goroutineInfo struct {
	id      trace.GoID
	class   goroutineClass
	parent  trace.GoID // trace.NoGoroutine when unknown or not a user goroutine
	entry   string     // as created (top frame of the creation stack) or learned from a stack
	refined string     // the first user frame above a standard-library entry (tRunner, WaitGroup.Go), once seen
	site    string     // "function file:line" of the go statement (top user frame of the creator's stack)
	siteKey string     // "file:line" with the file's base name
	ordinal int        // among same-site siblings of the same parent
	isRoot  bool
	isTest  bool // a top-level TestXxx goroutine (entry testing.tRunner)
	// settling is set once the goroutine's stack shows the harness's settle loop: the
	// user's main has returned and what the main goroutine does from then on (sleeping
	// while the other goroutines settle) is the harness's, so its records are dropped.
	settling bool
	preTrace bool // existed before tracing started (first seen as an initial status)
	order    int  // position in creation order, for the final goroutine table
	// namedRoot is set for a goroutine the testing driver's goroutine created while running
	// TestMain or an ExampleXxx function: the function's name, the root it hangs from.
	namedRoot string
	// rootCandidate is namedRoot as the creator's stack suggests it, for a goroutine whose
	// creator is still undecided; it becomes namedRoot if the creator turns out not to be a user goroutine.
	rootCandidate string
}

// pendingRecord is a record, or a lock operation (lock set), held back while its goroutine
// (or actor) is undecided. Both wait in one queue, so a lock op keeps its place among records.
type pendingRecord struct {
	kind   recordKind
	time   int64
	g      trace.GoID
	actor  trace.GoID
	reason string
	site   string
	stack  string  // GoBlock and lock ops: the stack string ("" none)
	lock   *lockOp // set for a lock operation, nil for a record
}

// lockOp is one logged lock operation: "<phase> <mode> <id>" (docs/events.md).
type lockOp struct {
	phase string // want, got or drop
	mode  string // w or r
	id    string // the mutex's address in hex
}

// parseLockOp reads a log message of the lock instrumentation; ok is false for anything
// else (the message is then dropped, never an error: a program may log what it likes).
func parseLockOp(message string) (op lockOp, ok bool) {
	parts := strings.Split(message, " ")
	if len(parts) != 3 {
		return lockOp{}, false
	}
	op = lockOp{phase: parts[0], mode: parts[1], id: parts[2]}
	if op.phase != "want" && op.phase != "got" && op.phase != "drop" || op.mode != "w" && op.mode != "r" || !isHexID(op.id) {
		return lockOp{}, false
	}
	return op, true
}

// isHexID: lowercase hex digits, optionally after "0x".
func isHexID(id string) bool {
	id = strings.TrimPrefix(id, "0x")
	if id == "" {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

type decoder struct {
	out        *bufio.Writer
	mode       string // "main", "test" or "auto" (decided by the first stack of goroutine 1)
	filter     entryFilter
	goroot     string
	goroutines map[trace.GoID]*goroutineInfo
	ordinals   map[string]int // parent gid + site + entry → next ordinal
	userOrder  []*goroutineInfo
	strings    map[string]int
	pending    []pendingRecord
	undecided  int
	waiting    map[trace.GoID][]*goroutineInfo // undecided children by undecided parent
	startTime  trace.Time
	started    bool
	seq        int
	frameCache map[trace.Stack]stackSummary
}

// stackSummary is what decoding needs from a stack, computed once per stack per generation.
type stackSummary struct {
	topUser    string // "function file:line" of the top user frame (or the top frame)
	topUserKey string // "base-file:line" of the same frame
	bottom     string // the outermost frame's function
	aboveStd   string // lowest user frame above a standard-library bottom frame
	isTest     bool   // contains testing.(*M).Run or _testmain.go
	hasUser    bool   // some frame is the user's (topUser is then the top user frame, not the top frame)
	namedRoot  string // innermost user TestMain or ExampleXxx frame's function base name, if any
	inSettle   bool   // the harness's settle loop (main.schedlabHarnessSettle) is on the stack
	blockStack string // the stack string of a GoBlock with this stack (stackStrings)
	logStack   string // the stack string of a lock op logged with this stack (API part empty)
}

// maxStackUserFrames bounds the user frames of a stack string.
const maxStackUserFrames = 12

func runDecode(args []string) int {
	fs := flag.NewFlagSet("decode", flag.ContinueOnError)
	mode := fs.String("mode", "auto", "main, test or auto: which goroutine is the root")
	drop := fs.String("drop", strings.Join(defaultDrop, ","), "comma-separated entry-function patterns of non-user goroutines (prefix*)")
	keep := fs.String("keep", strings.Join(defaultKeep, ","), "comma-separated entry-function patterns kept even if they match -drop")
	goroot := fs.String("goroot", "", "GOROOT of the toolchain that built the traced program (frames under it are standard library)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || (*mode != "main" && *mode != "test" && *mode != "auto") {
		fmt.Fprintln(os.Stderr, "usage: gohelper decode [-mode main|test|auto] [-drop P,…] [-keep P,…] [-goroot DIR] TRACE")
		return 2
	}
	file, err := os.Open(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "gohelper decode: %v\n", err)
		return 1
	}
	defer file.Close()
	d := &decoder{
		out:        bufio.NewWriterSize(os.Stdout, 1<<16),
		mode:       *mode,
		filter:     entryFilter{drop: splitPatterns(*drop), keep: splitPatterns(*keep)},
		goroot:     strings.TrimSuffix(*goroot, "/"),
		goroutines: map[trace.GoID]*goroutineInfo{},
		ordinals:   map[string]int{},
		strings:    map[string]int{"": 0},
		frameCache: map[trace.Stack]stackSummary{},
		waiting:    map[trace.GoID][]*goroutineInfo{},
	}
	status, message, generations := d.decode(file)
	d.flushPending(true)
	d.writeGoroutines()
	fmt.Fprintf(d.out, "Z\t%s\t%d\t%d\t%s\n", status, generations, d.seq, oneLine(message))
	if err := d.out.Flush(); err != nil {
		return 1
	}
	return 0
}

// decode reads every event; it returns "ok", "truncated" (some generation could not be
// read, every complete one was decoded) or "error" (not a readable trace).
func (d *decoder) decode(r io.Reader) (status, message string, generations int) {
	reader, err := trace.NewReader(bufio.NewReaderSize(r, 1<<20))
	if err != nil {
		return "error", "not a Go execution trace: " + err.Error(), 0
	}
	for {
		ev, err := reader.ReadEvent()
		if err == io.EOF {
			return "ok", "", generations
		}
		if err != nil {
			if generations > 0 || isShortRead(err) {
				return "truncated", err.Error(), generations
			}
			return "error", "cannot parse trace: " + err.Error(), generations
		}
		if !d.started {
			d.started = true
			d.startTime = ev.Time()
		}
		switch ev.Kind() {
		case trace.EventSync:
			if ev.Sync().N > 1 {
				generations++
			}
			d.endOfGeneration()
		case trace.EventStateTransition:
			if st := ev.StateTransition(); st.Resource.Kind == trace.ResourceGoroutine {
				d.transition(ev, st)
			}
		case trace.EventLog:
			d.log(ev)
		}
		if ev.Kind() != trace.EventSync && ev.Goroutine() != trace.NoGoroutine {
			d.learnFromStack(ev.Goroutine(), ev.Stack())
		}
	}
}

// isShortRead tells a trace cut short (the file ends inside a batch) from garbage.
func isShortRead(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "failed to read full batch") ||
		strings.Contains(err.Error(), "unexpected EOF")
}

// endOfGeneration decides every goroutine still undecided (as system goroutines: nothing
// showed they run user code) and emits the records held back, so at most one generation
// of records is ever buffered. Stack summaries are per generation.
func (d *decoder) endOfGeneration() {
	if d.undecided > 0 {
		if d.mode == "auto" {
			d.setMode("main")
		}
		for _, g := range d.goroutines {
			if g.class == classUndecided {
				d.decide(g, classSystem)
			}
		}
	}
	d.flushPending(true)
	clear(d.frameCache)
}

func (d *decoder) transition(ev trace.Event, st trace.StateTransition) {
	id := st.Resource.Goroutine()
	from, to := st.Goroutine()
	t := int64(ev.Time() - d.startTime)
	actor := ev.Goroutine()
	switch {
	case from == trace.GoUndetermined:
		if to == trace.GoNotExist {
			return
		}
		g := d.initial(id, st.Stack)
		d.record(kindInitial, t, g, trace.NoGoroutine, to.String(), "")
	case from == to:
		return // a later generation restating a known status
	case from == trace.GoNotExist:
		g := d.created(id, actor, ev.Stack(), st.Stack)
		d.record(kindGoCreate, t, g, actor, "", g.site)
	case to == trace.GoNotExist:
		d.record(kindGoEnd, t, d.lookup(id), actor, "", "")
	case from == trace.GoRunnable && to == trace.GoRunning:
		d.record(kindGoStart, t, d.lookup(id), actor, "", "")
	case from == trace.GoRunning && to == trace.GoWaiting:
		g := d.lookup(id)
		d.learnFromStack(id, st.Stack)
		s := d.summary(st.Stack)
		if s.inSettle {
			g.settling = true
		}
		d.emit(g, pendingRecord{kind: kindGoBlock, time: t, g: id, actor: actor, reason: st.Reason, site: s.topUser, stack: s.blockStack})
	case from == trace.GoWaiting && to == trace.GoRunnable:
		d.record(kindGoUnblock, t, d.lookup(id), actor, "", "")
	case from == trace.GoRunning && to == trace.GoRunnable:
		d.learnFromStack(id, st.Stack)
		d.record(kindGoSched, t, d.lookup(id), actor, st.Reason, d.summary(st.Stack).topUser)
	case from == trace.GoRunning && to == trace.GoSyscall:
		d.learnFromStack(id, st.Stack)
		d.record(kindSyscallEnter, t, d.lookup(id), actor, "", "")
	case from == trace.GoSyscall && to == trace.GoRunning:
		d.record(kindSyscallExit, t, d.lookup(id), actor, "", "")
	case from == trace.GoSyscall && to == trace.GoRunnable:
		d.record(kindSyscallUnblock, t, d.lookup(id), actor, "", "")
	}
}

// lookup returns the goroutine, creating an undecided pre-trace entry for one never seen
// (the parser emits an initial status first, so this is a safety net).
func (d *decoder) lookup(id trace.GoID) *goroutineInfo {
	if g, ok := d.goroutines[id]; ok {
		return g
	}
	return d.initial(id, trace.NoStack)
}

// initial registers a goroutine that existed before tracing started.
func (d *decoder) initial(id trace.GoID, stack trace.Stack) *goroutineInfo {
	if g, ok := d.goroutines[id]; ok {
		return g
	}
	g := &goroutineInfo{id: id, parent: trace.NoGoroutine, preTrace: true}
	d.goroutines[id] = g
	d.undecided++
	if id == 1 {
		// Goroutine 1 runs runtime.main: the root of a program, the testing driver of a test binary.
		switch d.mode {
		case "main":
			g.entry = "main.main"
			g.isRoot = true
			d.decide(g, classUser)
		case "test":
			d.decide(g, classSystem)
		}
		return g
	}
	if stack != trace.NoStack {
		d.learnFromStack(id, stack)
	}
	return g
}

// created registers a goroutine made by a go statement during the trace.
func (d *decoder) created(id, creator trace.GoID, creatorStack, newStack trace.Stack) *goroutineInfo {
	g := &goroutineInfo{id: id, parent: trace.NoGoroutine}
	for f := range newStack.Frames() {
		g.entry = mapFunc(f.Func)
		break
	}
	d.learnFromStack(creator, creatorStack) // settles auto mode before the creator's class is read
	cs := d.summary(creatorStack)
	g.site, g.siteKey = cs.topUser, cs.topUserKey
	d.goroutines[id] = g
	d.undecided++
	if g.entry == "testing.tRunner" && d.mode == "auto" && creator == 1 {
		d.setMode("test") // only a test binary's driver starts tRunner goroutines
	}
	parent := d.goroutines[creator]
	switch {
	case g.entry == "testing.tRunner" && (parent == nil || parent.class == classSystem) && d.mode == "test":
		g.isRoot, g.isTest = true, true // a top-level TestXxx goroutine: no creation site of its own
		g.site, g.siteKey = "", ""
		d.decide(g, classUser)
	case d.filter.dropped(g.entry) && g.entry != "testing.tRunner":
		d.decide(g, classSystem)
	case (parent == nil || parent.class == classSystem) && d.mode == "test" && cs.hasUser && cs.namedRoot != "":
		// TestMain and examples run on goroutine 1, the testing driver: what they start is the user's.
		g.namedRoot = cs.namedRoot
		d.assignOrdinal(g)
		d.decide(g, classUser)
	case parent == nil || parent.class == classSystem:
		d.decide(g, classSystem)
	case parent.class == classUser:
		g.parent = creator
		d.assignOrdinal(g)
		d.decide(g, classUser)
	default:
		g.parent = creator // undecided parent: decided with it (see decide)
		if cs.hasUser {
			g.rootCandidate = cs.namedRoot
		}
		d.waiting[creator] = append(d.waiting[creator], g)
	}
	return g
}

func (d *decoder) assignOrdinal(g *goroutineInfo) {
	key := strconv.FormatInt(int64(g.parent), 10) + "\x00" + g.siteKey + "\x00" + g.entry
	if g.namedRoot != "" {
		key = "root " + g.namedRoot + "\x00" + g.siteKey + "\x00" + g.entry
	}
	g.ordinal = d.ordinals[key]
	d.ordinals[key]++
}

// decide fixes a goroutine's class, then decides the undecided children it created.
func (d *decoder) decide(g *goroutineInfo, class goroutineClass) {
	if g.class != classUndecided {
		return
	}
	g.class = class
	d.undecided--
	if class == classUser {
		g.order = len(d.userOrder)
		d.userOrder = append(d.userOrder, g)
	}
	children := d.waiting[g.id]
	delete(d.waiting, g.id)
	for _, child := range children {
		if child.class != classUndecided {
			continue
		}
		if class == classUser {
			d.assignOrdinal(child)
			d.decide(child, classUser)
		} else if child.rootCandidate != "" && d.mode == "test" && !d.filter.dropped(child.entry) {
			child.parent = trace.NoGoroutine
			child.namedRoot = child.rootCandidate
			d.assignOrdinal(child)
			d.decide(child, classUser)
		} else {
			child.parent = trace.NoGoroutine
			d.decide(child, classSystem)
		}
	}
	if d.undecided == 0 {
		d.flushPending(false)
	}
}

// setMode fixes auto mode once the trace shows whether it comes from a test binary.
func (d *decoder) setMode(mode string) {
	if d.mode != "auto" {
		return
	}
	d.mode = mode
	if g, ok := d.goroutines[1]; ok && g.class == classUndecided {
		if mode == "main" {
			g.entry, g.isRoot = "main.main", true
			d.decide(g, classUser)
		} else {
			d.decide(g, classSystem)
		}
	}
}

// learnFromStack uses a stack of goroutine id to settle auto mode, the entry of a
// pre-trace goroutine, and the function a standard-library entry runs (a test's name).
func (d *decoder) learnFromStack(id trace.GoID, stack trace.Stack) {
	if stack == trace.NoStack {
		return
	}
	g, ok := d.goroutines[id]
	if !ok {
		return
	}
	needMode := id == 1 && d.mode == "auto"
	needEntry := g.class == classUndecided && g.preTrace && id != 1
	needRefine := g.class == classUser && g.refined == "" && wrapperEntries[g.entry]
	if !needMode && !needEntry && !needRefine {
		return
	}
	s := d.summary(stack)
	if needMode {
		if s.isTest {
			d.setMode("test")
		} else {
			d.setMode("main")
		}
	}
	if needEntry && s.bottom != "" {
		g.entry = s.bottom
		if d.filter.dropped(g.entry) || strings.HasPrefix(g.entry, "testing.") {
			d.decide(g, classSystem)
		} else {
			d.decide(g, classUser)
		}
	}
	if needRefine && s.bottom == g.entry && s.aboveStd != "" {
		g.refined = s.aboveStd
	}
}

func (d *decoder) summary(stack trace.Stack) stackSummary {
	if stack == trace.NoStack {
		return stackSummary{}
	}
	if s, ok := d.frameCache[stack]; ok {
		return s
	}
	var s stackSummary
	var top trace.StackFrame
	haveTop, haveUser := false, false
	var frames []trace.StackFrame
	for f := range stack.Frames() {
		f.Func = mapFunc(f.Func)
		frames = append(frames, f)
		if !haveTop {
			top, haveTop = f, true
		}
		// Injected functions (perturbation, lock recording) are not the user's: the site is their caller's line.
		if !haveUser && d.isUserFrame(f) {
			s.topUser, s.topUserKey = frameSite(f), frameKey(f)
			haveUser = true
		}
		if s.namedRoot == "" && d.isUserFrame(f) {
			s.namedRoot = namedRootOf(f)
		}
		if f.Func == "testing.(*M).Run" || strings.HasSuffix(f.File, "_testmain.go") {
			s.isTest = true
		}
		if f.Func == "main.schedlabHarnessSettle" {
			s.inSettle = true
		}
	}
	s.hasUser = haveUser
	if !haveUser && haveTop {
		s.topUser, s.topUserKey = frameSite(top), frameKey(top)
	}
	if n := len(frames); n > 0 {
		s.bottom = frames[n-1].Func
		if wrapperEntries[s.bottom] {
			for i := n - 2; i >= 0; i-- {
				if !d.isStdFrame(frames[i]) {
					s.aboveStd = frames[i].Func
					break
				}
			}
		}
	}
	s.blockStack, s.logStack = d.stackStrings(frames)
	d.frameCache[stack] = s
	return s
}

// stackStrings formats frames (innermost first, functions mapped) as the stack strings of
// docs/events.md: "API;FUNC FILE:LINE;…" for a GoBlock, ";FUNC FILE:LINE;…" for a lock op.
// API is the standard-library function the top user (or injected) frame called: walking
// from the innermost frame, the last standard-library frame before the first frame that is
// not; "" when the top frame is not standard library, the outermost frame when none is.
// Then up to maxStackUserFrames user frames, injected frames skipped, so the first one is
// the site. A lock op's stack has no user frame only when the instrumentation ran outside
// user code: it is "" (none) then.
func (d *decoder) stackStrings(frames []trace.StackFrame) (block, log string) {
	api := ""
	i := 0
	for ; i < len(frames) && d.isStdFrame(frames[i]) && !isInjectedFrame(frames[i]); i++ {
		api = frames[i].Func
	}
	var b strings.Builder
	n := 0
	for ; i < len(frames) && n < maxStackUserFrames; i++ {
		if f := frames[i]; d.isUserFrame(f) {
			b.WriteByte(';')
			b.WriteString(frameSite(f))
			n++
		}
	}
	users := b.String()
	return api + users, users
}

// record emits a record of goroutine g (see emit).
func (d *decoder) record(kind recordKind, t int64, g *goroutineInfo, actor trace.GoID, reason, site string) {
	d.emit(g, pendingRecord{kind: kind, time: t, g: g.id, actor: actor, reason: reason, site: site})
}

// emit writes a record or lock op of a user goroutine, holds it while the goroutine or
// actor is undecided (behind everything already held, so the order is the trace's), and
// drops it for a system goroutine.
func (d *decoder) emit(g *goroutineInfo, p pendingRecord) {
	if g.class == classSystem || g.settling {
		return
	}
	if len(d.pending) > 0 || d.undecided > 0 && (g.class == classUndecided || d.isUndecided(p.actor)) {
		d.pending = append(d.pending, p)
		return
	}
	d.write(p)
}

// log turns a lock instrumentation's user log (category lockLogCategory, locks.go) into a lock op of
// its goroutine; logs of other categories and malformed messages are ignored.
func (d *decoder) log(ev trace.Event) {
	l := ev.Log()
	id := ev.Goroutine()
	if l.Category != lockLogCategory || id == trace.NoGoroutine {
		return
	}
	op, ok := parseLockOp(l.Message)
	if !ok {
		return
	}
	d.learnFromStack(id, ev.Stack()) // may decide the goroutine, as a block's stack does
	s := d.summary(ev.Stack())
	site := ""
	if s.hasUser {
		site = s.topUser
	}
	d.emit(d.lookup(id), pendingRecord{time: int64(ev.Time() - d.startTime), g: id, actor: id, site: site, stack: s.logStack, lock: &op})
}

func (d *decoder) isUndecided(id trace.GoID) bool {
	g, ok := d.goroutines[id]
	return ok && g.class == classUndecided
}

// flushPending writes held records in order, up to the first one whose goroutine or
// actor is still undecided (all of them when final).
func (d *decoder) flushPending(final bool) {
	i := 0
	for ; i < len(d.pending); i++ {
		p := d.pending[i]
		if !final && (d.isUndecided(p.g) || d.isUndecided(p.actor)) {
			break
		}
		if g := d.goroutines[p.g]; g.class == classUser {
			d.write(p)
		}
	}
	d.pending = append(d.pending[:0], d.pending[i:]...)
}

var lineBuf []byte

// write prints one record line: kind, time, gid, actor (user goroutine or -1), reason id,
// site id, stack id; or a lock op line (writeLockOp).
func (d *decoder) write(p pendingRecord) {
	if p.lock != nil {
		d.writeLockOp(p)
		return
	}
	actor := int64(-1)
	if a, ok := d.goroutines[p.actor]; ok && a.class == classUser {
		actor = int64(p.actor)
	}
	reason := d.intern(p.reason)
	site := d.intern(p.site)
	stack := d.intern(p.stack)
	b := lineBuf[:0]
	b = strconv.AppendInt(b, int64(p.kind), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, p.time, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(p.g), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, actor, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(reason), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(site), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(stack), 10)
	b = append(b, '\n')
	d.out.Write(b)
	lineBuf = b
	d.seq++
}

// writeLockOp prints one lock op line: "L phase mode lock time gid siteId stackId". It
// does not count as a record: its place is before the record numbered d.seq.
func (d *decoder) writeLockOp(p pendingRecord) {
	site := d.intern(p.site)
	stack := d.intern(p.stack)
	b := append(lineBuf[:0], "L\t"...)
	b = append(b, p.lock.phase...)
	b = append(b, '\t')
	b = append(b, p.lock.mode...)
	b = append(b, '\t')
	b = append(b, p.lock.id...)
	b = append(b, '\t')
	b = strconv.AppendInt(b, p.time, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(p.g), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(site), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(stack), 10)
	b = append(b, '\n')
	d.out.Write(b)
	lineBuf = b
}

// intern returns the id of s, first printing an "S id text" line for a new string.
func (d *decoder) intern(s string) int {
	if id, ok := d.strings[s]; ok {
		return id
	}
	id := len(d.strings)
	d.strings[s] = id
	fmt.Fprintf(d.out, "S\t%d\t%s\n", id, oneLine(s))
	return id
}

// writeGoroutines prints one "G" line per user goroutine, in the order they were decided:
// gid, parent (-1), root flag (0 none, 1 program root, 2 test root), ordinal, entry,
// refined entry, creation site, site key. A named root (TestMain, ExampleXxx) has no
// goroutine of its own: it comes first as a pseudo-root line "G <gid> -1 3 0 0 <name>"
// with a gid above every real one, and its children name that gid as their parent.
func (d *decoder) writeGoroutines() {
	pseudo := map[string]int64{}
	next := int64(0)
	for id := range d.goroutines {
		next = max(next, int64(id))
	}
	for _, g := range d.userOrder {
		if g.namedRoot != "" && pseudo[g.namedRoot] == 0 {
			next++
			pseudo[g.namedRoot] = next
			fmt.Fprintf(d.out, "G\t%d\t-1\t3\t0\t0\t%s\t\t\t\n", next, oneLine(g.namedRoot))
		}
	}
	for _, g := range d.userOrder {
		root := 0
		if g.isRoot {
			root = 1
			if g.isTest {
				root = 2
			}
		}
		parent := int64(-1)
		if g.parent != trace.NoGoroutine {
			parent = int64(g.parent)
		} else if g.namedRoot != "" {
			parent = pseudo[g.namedRoot]
		}
		pre := 0
		if g.preTrace {
			pre = 1
		}
		fmt.Fprintf(d.out, "G\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", g.id, parent, root, pre, g.ordinal,
			oneLine(g.entry), oneLine(g.refined), oneLine(g.site), oneLine(g.siteKey))
	}
}

// mapFunc maps the collect harness's renamed user main back to main.main (see docs/identity.md).
func mapFunc(name string) string {
	if rest, ok := strings.CutPrefix(name, "main.schedlabUserMain"); ok {
		return "main.main" + rest
	}
	return name
}

// namedRootOf returns "TestMain" or "ExampleXxx" for a frame of that function in a
// _test.go file ("example.com/m/pkg_test.ExampleCache" → "ExampleCache"), else "". A
// closure inside it ("….ExampleCache.func1") is not the function itself.
func namedRootOf(f trace.StackFrame) string {
	if !strings.HasSuffix(f.File, "_test.go") {
		return ""
	}
	name := f.Func[strings.LastIndexByte(f.Func, '/')+1:]
	_, name, ok := strings.Cut(name, ".")
	if !ok || strings.ContainsAny(name, ".()") {
		return ""
	}
	if name == "TestMain" || name == "Example" || strings.HasPrefix(name, "Example") && isExampleSuffix(name[len("Example"):]) {
		return name
	}
	return ""
}

// isExampleSuffix: what may follow "Example" in an example's name (ExampleT, ExampleT_M, Example_suffix).
func isExampleSuffix(rest string) bool {
	if rest == "" {
		return true
	}
	r := rest[0]
	return r == '_' || r >= 'A' && r <= 'Z'
}

func frameSite(f trace.StackFrame) string {
	return f.Func + " " + frameKey(f)
}

func frameKey(f trace.StackFrame) string {
	return path.Base(f.File) + ":" + strconv.FormatUint(f.Line, 10)
}

// isHarnessFrame reports whether a frame is the collect harness's (docs/collect.md): its
// functions are main.schedlabHarness…, and its own main.main lives in zz_schedlab_harness.go.
// Never a user site: a goroutine that blocks inside the harness (e.g. main waiting for the
// trace to stop while another goroutine crashes) gets no harness site, like one with no user frame.
func isHarnessFrame(f trace.StackFrame) bool {
	return strings.HasPrefix(f.Func, "main.schedlabHarness") || path.Base(f.File) == "zz_schedlab_harness.go"
}

// isInjectedFrame reports whether a frame is code schedlab put into the program: the
// harness, and every function whose name (after the package path) contains ".schedlab" —
// the perturbation (pkg.schedlabPerturb), the lock recording (pkg.schedlabLock…) and their
// closures. Never a user frame: a site is the user line that called it.
func isInjectedFrame(f trace.StackFrame) bool {
	return isHarnessFrame(f) || strings.Contains(f.Func[strings.LastIndexByte(f.Func, '/')+1:], ".schedlab")
}

// isUserFrame: neither standard library nor injected.
func (d *decoder) isUserFrame(f trace.StackFrame) bool {
	return !d.isStdFrame(f) && !isInjectedFrame(f)
}

// isStdFrame reports whether a frame is Go standard library code: its file is under the
// given GOROOT, or (without a GOROOT match) its function's package path looks standard.
func (d *decoder) isStdFrame(f trace.StackFrame) bool {
	if d.goroot != "" && strings.HasPrefix(f.File, d.goroot+"/src/") {
		return true
	}
	if strings.HasPrefix(f.File, "/") && d.goroot != "" {
		return false
	}
	return d.isStdFunc(f.Func)
}

// isStdFunc: the package path's first element has no dot and the package is not main.
func (d *decoder) isStdFunc(fn string) bool {
	pkg := fn
	slash := strings.LastIndexByte(pkg, '/')
	if dot := strings.IndexByte(pkg[slash+1:], '.'); dot >= 0 {
		pkg = pkg[:slash+1+dot]
	}
	if pkg == "main" || strings.HasPrefix(fn, "main.") {
		return false
	}
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".")
}

func oneLine(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}
