// The line format the decoder streams to Node (docs/events.md): record lines, lock op
// lines, interned strings, the goroutine table and the closing status line.

package decode

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/exp/trace"
)

// recordKind numbers the records the decoder streams to Node. The order is RECORD_KINDS of
// src/core/events.ts (EVENT_TYPES, then NON_EVENT_KINDS): recordKindNames spells it out, the
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

// RunRecordKinds is the subcommand record-kinds: it prints recordKindNames as JSON.
func RunRecordKinds(args []string) int {
	if err := json.NewEncoder(os.Stdout).Encode(recordKindNames[:]); err != nil {
		fmt.Fprintln(os.Stderr, "gohelper record-kinds:", err)
		return 1
	}
	return 0
}

// write prints one record line: kind, time, gid, actor (user goroutine or -1), reason id,
// site id, stack id; or a lock op line (writeLockOp).
func (d *decoder) write(p pendingRecord) {
	if d.countOnly {
		if p.lock == nil {
			d.seq++
			if p.kind < kindSyscallEnter {
				d.events++
			}
		}
		return
	}
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
	b := d.lineBuf[:0]
	b = strconv.AppendInt(b, int64(p.kind), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, p.time, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(p.g), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, actor, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(reason), 10)
	d.endLine(b, site, stack)
	d.seq++
}

// writeLockOp prints one lock op line: "L phase mode lock time gid siteId stackId". It
// does not count as a record: its place is before the record numbered d.seq.
func (d *decoder) writeLockOp(p pendingRecord) {
	site := d.intern(p.site)
	stack := d.intern(p.stack)
	b := append(d.lineBuf[:0], "L\t"...)
	b = append(b, p.lock.phase...)
	b = append(b, '\t')
	b = append(b, p.lock.mode...)
	b = append(b, '\t')
	b = append(b, p.lock.id...)
	b = append(b, '\t')
	b = strconv.AppendInt(b, p.time, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(p.g), 10)
	d.endLine(b, site, stack)
}

// endLine ends the line in b with its site and stack ids and writes it; b is kept for the next line.
func (d *decoder) endLine(b []byte, site, stack int) {
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(site), 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(stack), 10)
	b = append(b, '\n')
	d.out.Write(b)
	d.lineBuf = b
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

func oneLine(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}
