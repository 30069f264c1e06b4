// Lock operations: the user logs the lock instrumentation writes (overlay/locks.go) read
// back as lock op lines of their goroutine.

package decode

import (
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

// log turns a lock instrumentation's user log (category overlay.LockLogCategory) into a lock op of
// its goroutine; logs of other categories and malformed messages are ignored.
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
	d.emit(d.lookup(id), pendingRecord{time: int64(ev.Time() - d.startTime), g: id, actor: id, site: site, stack: s.logStack, lock: &op})
}
