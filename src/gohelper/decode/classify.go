// Which goroutines are the user's: each goroutine is decided user or system from its
// creator, its entry function and its stacks (docs/identity.md), and its records are held
// back, in trace order, until it and the goroutine acting on it are decided.

package decode

import (
	"strconv"
	"strings"

	"golang.org/x/exp/trace"
)

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
	userGo  bool       // site is a user frame (the creator's stack had one), not the library's top frame
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
	g.site, g.siteKey, g.userGo = cs.topUser, cs.topUserKey, cs.hasUser
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
