// Lock operations: the user logs the lock instrumentation writes (overlay/locks.go) read
// back as lock op lines of their goroutine, within the lock-recording budget.

package decode

import (
	"sort"
	"strings"

	"golang.org/x/exp/trace"

	"schedlab.dev/gohelper/overlay"
)

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

// lockBudget applies overlay.LockLogBudget to the lock ops read, as a budgeted binary does
// (overlay/locks.go, "The budget"), so that a trace logged without one (a -race build logs
// every operation) yields no more: a site (the Lock statement's top user frame and mode)
// keeps its first LockLogBudget wants and their gots, and a drop is kept only while its
// lock has a kept hold not yet dropped. The fold's holds are then the kept ones, never
// invented. A trimmed want whose got never comes (its goroutine still blocked in Lock when
// the trace ends) is kept after all, at the end (dated the trace's last event, as the
// stream's times never go back): what the goroutine waits for. On a budgeted
// binary's trace it keeps everything, but for two Lock statements of one mode on one line.
type lockBudget struct {
	spent   map[string]int               // mode and site → wants kept
	trimmed map[trace.GoID]pendingRecord // goroutine → its trimmed want, awaiting its got
	holds   map[string]int               // lock → kept holds not yet dropped
}

func newLockBudget() lockBudget {
	return lockBudget{spent: map[string]int{}, trimmed: map[trace.GoID]pendingRecord{}, holds: map[string]int{}}
}

// keep reports whether the lock op p of goroutine g, logged at site (its stack's top user
// frame), is kept; a trimmed want is held back.
func (b *lockBudget) keep(g trace.GoID, site string, p pendingRecord) bool {
	op := p.lock
	switch op.phase {
	case "want":
		key := op.mode + " " + site
		if b.spent[key] >= overlay.LockLogBudget {
			b.trimmed[g] = p
			return false
		}
		b.spent[key]++
		delete(b.trimmed, g)
		return true
	case "got":
		if w, ok := b.trimmed[g]; ok && w.lock.id == op.id {
			delete(b.trimmed, g)
			return false
		}
		b.holds[op.id]++
		return true
	}
	if b.holds[op.id] <= 0 {
		return false
	}
	b.holds[op.id]--
	return true
}

// blockedWants are the trimmed wants no got followed, in the order they were logged.
func (b *lockBudget) blockedWants() []pendingRecord {
	wants := make([]pendingRecord, 0, len(b.trimmed))
	for _, p := range b.trimmed {
		wants = append(wants, p)
	}
	sort.Slice(wants, func(i, j int) bool { return wants[i].time < wants[j].time })
	return wants
}

// log turns a lock instrumentation's user log (category overlay.LockLogCategory) into a lock op of
// its goroutine, within the budget (lockBudget); logs of other categories and malformed
// messages are ignored.
func (d *decoder) log(ev trace.Event) {
	l := ev.Log()
	id := ev.Goroutine()
	if l.Category != overlay.LockLogCategory || id == trace.NoGoroutine {
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
	p := pendingRecord{time: int64(ev.Time() - d.startTime), g: id, actor: id, site: site, stack: s.logStack, lock: &op}
	if d.locks.keep(id, s.topUser, p) {
		d.emit(d.lookup(id), p)
	}
}

// emitBlockedWants emits, once the trace is read, the trimmed wants no got followed,
// dated the last event read.
func (d *decoder) emitBlockedWants() {
	for _, p := range d.locks.blockedWants() {
		p.time = max(p.time, d.lastTime)
		d.emit(d.lookup(p.g), p)
	}
}
