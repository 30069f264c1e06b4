// Package decode is the subcommand decode: it reads a Go 1.22–1.26 execution trace with
// golang.org/x/exp/trace and streams the user goroutines' scheduling records, with the
// stack of each GoBlock, and the lock operations the instrumentation logged (category
// overlay.LockLogCategory) to stdout (format: docs/events.md).
//
// reader.go reads the trace and turns state transitions into records; classify.go
// decides which goroutines are the user's and holds records until it knows; stacks.go
// summarises stacks into sites and stack strings; lockops.go reads the lock logs;
// wire.go writes the line format Node reads.
package decode

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/exp/trace"
)

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
	lineBuf    []byte // the line being written, reused
	locks      lockBudget
	lastTime   int64 // time of the last event read, from startTime
	countOnly  bool  // -count: records are counted, not written
	events     int   // -count: six-type events among the records counted
}

// Run is the subcommand decode.
func Run(args []string) int {
	fs := flag.NewFlagSet("decode", flag.ContinueOnError)
	mode := fs.String("mode", "auto", "main, test or auto: which goroutine is the root")
	drop := fs.String("drop", strings.Join(defaultDrop, ","), "comma-separated entry-function patterns of non-user goroutines (prefix*)")
	keep := fs.String("keep", strings.Join(defaultKeep, ","), "comma-separated entry-function patterns kept even if they match -drop")
	goroot := fs.String("goroot", "", "GOROOT of the toolchain that built the traced program (frames under it are standard library)")
	count := fs.Bool("count", false, "write no records: only a count line \"C records events\" and the status line")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 || (*mode != "main" && *mode != "test" && *mode != "auto") {
		fmt.Fprintln(os.Stderr, "usage: gohelper decode [-mode main|test|auto] [-drop P,…] [-keep P,…] [-goroot DIR] [-count] TRACE")
		return 2
	}
	file, err := os.Open(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "gohelper decode: %v\n", err)
		return 1
	}
	defer file.Close()
	opts := options{mode: *mode, filter: entryFilter{drop: splitPatterns(*drop), keep: splitPatterns(*keep)}, goroot: *goroot, countOnly: *count}
	if err := decodeStream(file, os.Stdout, opts); err != nil {
		return 1
	}
	return 0
}

// options are decode's flags, parsed.
type options struct {
	mode   string // "main", "test" or "auto"
	filter entryFilter
	goroot string
	// countOnly: the stream has no records, lock ops, strings or goroutines, only the
	// record and event counts of the user goroutines (what ingest needs to plan an excerpt).
	countOnly bool
}

// decodeStream decodes the trace r into the line stream of docs/events.md on w. A trace
// that cannot be read is reported in the stream's status line; the error is w's.
func decodeStream(r io.Reader, w io.Writer, opts options) error {
	d := &decoder{
		out:        bufio.NewWriterSize(w, 1<<16),
		mode:       opts.mode,
		filter:     opts.filter,
		goroot:     strings.TrimSuffix(opts.goroot, "/"),
		goroutines: map[trace.GoID]*goroutineInfo{},
		ordinals:   map[string]int{},
		strings:    map[string]int{"": 0},
		frameCache: map[trace.Stack]stackSummary{},
		waiting:    map[trace.GoID][]*goroutineInfo{},
		locks:      newLockBudget(),
		countOnly:  opts.countOnly,
	}
	status, message, generations := d.decode(r)
	d.emitBlockedWants()
	d.flushPending(true)
	if d.countOnly {
		fmt.Fprintf(d.out, "C\t%d\t%d\n", d.seq, d.events)
	} else {
		d.writeGoroutines()
	}
	fmt.Fprintf(d.out, "Z\t%s\t%d\t%d\t%s\n", status, generations, d.seq, oneLine(message))
	return d.out.Flush()
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
		d.lastTime = int64(ev.Time() - d.startTime)
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
		// A block with no user frame on its stack (`go io.Copy(…)`: every frame is the standard
		// library's) is placed at the user's line that led into it, its go statement; the
		// stack string still names the library call it is parked in.
		site := s.topUser
		if !s.hasUser && g.userGo {
			site = g.site
		}
		d.emit(g, pendingRecord{kind: kindGoBlock, time: t, g: id, actor: actor, reason: st.Reason, site: site, stack: s.blockStack})
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
