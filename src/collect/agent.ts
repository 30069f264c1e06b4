// The run agent: Go code collect adds to every test binary (zz_schedlab_agent_test.go, with a
// TestMain) and every main program (zz_schedlab_agent.go, called by the harness) through the
// build overlay. It takes the runtime's goroutine leak profile at the end of each run (and just
// before a test binary's deadline), and a watchdog proves hangs with it and stops the run
// early. This file owns the Go source, the environment it reads, its exit code and the
// headers it writes; docs/collect.md ("The run agent") documents the contract.

import { goMinorVersion } from "../go/index.js";
import { settleLoopGo } from "./settle.js";

/** Environment variables the agent reads; the dump and deadline are the harness's own. */
export const AGENT_ENV = {
  /** The file for the leak profile (written whole: a temporary name, then renamed); unset: no profile. */
  profile: "SCHEDLAB_AGENT_PROFILE",
  /** "1": run the watchdog that proves hangs (needs the profile). */
  watch: "SCHEDLAB_AGENT_WATCH",
  /** The goroutine dump of a run the agent stopped (main programs: the harness's dump). */
  dump: "SCHEDLAB_DUMP",
  /** The run's deadline in ms: a test binary's profile is taken shortly before it. */
  deadlineMs: "SCHEDLAB_DEADLINE_MS",
  /** Upper bound in ms of a test binary's settle before its end profile (the harness's variable). */
  settleMs: "SCHEDLAB_SETTLE_MS",
} as const;

/** Exit code of a run the agent stopped because the runtime proved it hung. */
export const AGENT_HANG_EXIT_CODE = 125;

/** The file name of the agent in a test package (overlay only; the package is that of its test files). */
export const AGENT_TEST_FILE = "zz_schedlab_agent_test.go";

/** The file name of the agent in a main package, beside the harness (overlay only). */
export const AGENT_MAIN_FILE = "zz_schedlab_agent.go";

/** The name the user's TestMain gets on its own line when the package defines one (the agent's TestMain calls it). */
export const USER_TEST_MAIN = "schedlabUserTestMain";

/**
 * The watchdog's probe interval: BASE while the process shows activity, doubled after each
 * profile that proves nothing, up to MOST while it stays idle. A hang is therefore stopped
 * within about MOST (plus one profile) of the moment it became provable.
 */
export const AGENT_PROBE_MS = { base: 100, most: 1600 } as const;

/**
 * The profile file beside a run's trace (`run-N.trace.goroutineleak.txt`); invariant shared
 * with src/leaks/peers.ts, which reads it as the `leakprofile` peer's report.
 */
export const AGENT_PROFILE_SUFFIX = ".goroutineleak.txt";

/** The experiment that enables the goroutine leak profile in Go 1.26. */
export const LEAK_PROFILE_EXPERIMENT = "goroutineleakprofile";

/**
 * How a Go version offers the goroutine leak profile (runtime/pprof "goroutineleak"): Go
 * 1.26 only in a build with GOEXPERIMENT=goroutineleakprofile; Go 1.27 made it a standard
 * profile and removed that experiment, which its go command rejects ("unknown
 * GOEXPERIMENT"), so the build gets no GOEXPERIMENT; Go before 1.26 has no such profile. A
 * version that names no minor (a development build) is taken as new.
 */
export type LeakProfileSupport =
  | { readonly kind: "experiment"; readonly goexperiment: string }
  | { readonly kind: "standard" }
  | { readonly kind: "none"; readonly why: string };

export function leakProfileSupport(version: string): LeakProfileSupport {
  const minor = goMinorVersion(version);
  if (minor === null || minor >= 27) return { kind: "standard" };
  if (minor === 26) return { kind: "experiment", goexperiment: LEAK_PROFILE_EXPERIMENT };
  return {
    kind: "none",
    why:
      `${version} has no goroutine leak profile (Go 1.26 has it as ` +
      `GOEXPERIMENT=${LEAK_PROFILE_EXPERIMENT}, Go 1.27 as a standard profile): select Go 1.26 or newer ` +
      `with GOTOOLCHAIN`,
  };
}

/**
 * What a collect says once when the run agent is on but `version` has no goroutine leak
 * profile (Go before 1.26), or null when it has one.
 */
export function leakProfileUnavailable(version: string): string | null {
  const support = leakProfileSupport(version);
  return support.kind !== "none"
    ? null
    : `${support.why}; without it the run agent cannot prove a hang, so a deadlocked run waits for its ` +
        "deadline, and no run records the runtime's leak profile";
}

/** The first line of every profile file the agent writes (then `end`, `hang` or `deadline`: core's LeakProfileTaken); the runtime's text follows. */
export const AGENT_PROFILE_HEADER = "# schedlab-agent taken=";

/** The first line of the dump of a run the agent stopped, e.g. `# schedlab-agent stop=hang code=125 wait="chan receive" after=1234ms`. */
export const AGENT_DUMP_HEADER = "# schedlab-agent stop=hang ";

/** Whether a dump's first line says the agent stopped the run as hung. */
export function agentStoppedHung(dumpHead: string): boolean {
  return dumpHead.startsWith(AGENT_DUMP_HEADER);
}

/**
 * The Go source of the agent for a package. Invariants:
 * - every identifier is prefixed schedlabAgent and every import aliased schedlabAgent…, so
 *   nothing clashes with the user's code; it compiles at any language version from go 1.12
 *   (no `any`, no generics, no min/max builtins, no `0o` literals);
 * - the agent never starts a goroutine of its own: each watchdog probe, and a test binary's
 *   deadline profile, run from time.AfterFunc, in a goroutine whose entry function is
 *   schedlabAgent… (dropped by the decoder's `*.schedlabAgent*` pattern, src/trace/filter.ts),
 *   so between probes no agent goroutine exists for a dump, goleak or the profile to see;
 * - one mutex serialises every profile and the end of the run: once the run's end (or a
 *   hang) is claimed, no other profile is written;
 * - without the profile (a build without GOEXPERIMENT=goroutineleakprofile on Go 1.26, any
 *   Go before it) it does nothing but its TestMain and end-of-run hooks.
 *
 * A test package's agent defines TestMain: it runs `schedlabUserTestMain(m)` when the package
 * has its own (renamed on its line by the Go helper's collect-overlay -testmain, which also
 * routes that file's os.Exit and log.Fatal* calls through schedlabAgentExit…), else m.Run(),
 * then settles, takes the end profile and runs the hooks in schedlabAgentAtEnd. A main
 * package's agent is driven by the harness (HARNESS_SOURCE): schedlabAgentBegin(true) after
 * the trace starts, schedlabAgentEnd after it stops, schedlabAgentOnHang to stop a hung run.
 */
export function agentSource(kind: "main" | "test", packageName: string, userTestMain = false): string {
  const imports = [
    'schedlabAgentBytes "bytes"',
    'schedlabAgentFmt "fmt"',
    ...(kind === "test" ? ['schedlabAgentLog "log"'] : []),
    'schedlabAgentOS "os"',
    'schedlabAgentRuntime "runtime"',
    'schedlabAgentMetrics "runtime/metrics"',
    'schedlabAgentPprof "runtime/pprof"',
    'schedlabAgentTrace "runtime/trace"',
    'schedlabAgentStrconv "strconv"',
    'schedlabAgentStrings "strings"',
    'schedlabAgentSync "sync"',
    ...(kind === "test" ? ['schedlabAgentTesting "testing"'] : []),
    'schedlabAgentTime "time"',
  ];
  return (
    `// Code generated by schedlab collect (the run agent). DO NOT EDIT.\n\npackage ${packageName}\n\n` +
    `import (\n${imports.map((i) => `\t${i}\n`).join("")})\n` +
    AGENT_CORE +
    (kind === "test" ? agentTestMain(userTestMain) : "")
  );
}

/** What every agent has: the state, the watchdog, the profile, the hang rule and the end. */
const AGENT_CORE = `
var (
	// schedlabAgentMu serialises profiles and the end of the run; the fields below are under it.
	schedlabAgentMu schedlabAgentSync.Mutex
	// schedlabAgentEnded: the run's end or a hang is claimed; no profile is written any more.
	schedlabAgentEnded bool
	// schedlabAgentIsMain: a main program (goroutine 1 runs the user's main) rather than a test binary.
	schedlabAgentIsMain bool
	schedlabAgentInterval   schedlabAgentTime.Duration
	schedlabAgentWatchTimer *schedlabAgentTime.Timer
	schedlabAgentDeadline   *schedlabAgentTime.Timer
	schedlabAgentSamples    []schedlabAgentMetrics.Sample
	schedlabAgentBegun      = schedlabAgentTime.Now()

	// schedlabAgentAtEnd: end-of-run checks (collect --peers goleak in a test binary), run once
	// after the end profile, and before a hung run exits (schedlabAgentOnEnd adds one).
	schedlabAgentAtEnd []func()
	// schedlabAgentOnHang stops a hung run's trace and writes its dump (the harness passes it in
	// a main program); nil: the agent stops runtime/trace and writes the dump itself.
	schedlabAgentOnHang func(header string)
)

// schedlabAgentOnEnd adds an end-of-run check.
func schedlabAgentOnEnd(check func()) {
	schedlabAgentMu.Lock()
	defer schedlabAgentMu.Unlock()
	schedlabAgentAtEnd = append(schedlabAgentAtEnd, check)
}

// schedlabAgentHooks is a copy of the end-of-run checks, taken under the mutex.
func schedlabAgentHooks() []func() {
	schedlabAgentMu.Lock()
	defer schedlabAgentMu.Unlock()
	return append([]func(){}, schedlabAgentAtEnd...)
}

// The runtime/metrics the watchdog reads before it pays for a profile (Go 1.26 has them; a
// metric the toolchain lacks reads as KindBad and is no evidence either way).
var schedlabAgentMetricNames = []string{
	"/sched/goroutines/running:goroutines",
	"/sched/goroutines/runnable:goroutines",
	"/sched/goroutines/not-in-go:goroutines",
	"/gc/cycles/total:gc-cycles",
}

// schedlabAgentBegin arms the watchdog when the environment asks for it and the build has the
// goroutine leak profile, and, in a test binary, the profile taken shortly before its deadline.
// onHang: see schedlabAgentOnHang.
func schedlabAgentBegin(isMain bool, onHang func(header string)) {
	schedlabAgentMu.Lock()
	defer schedlabAgentMu.Unlock()
	schedlabAgentIsMain = isMain
	schedlabAgentOnHang = onHang
	if schedlabAgentPprof.Lookup("goroutineleak") == nil || schedlabAgentOS.Getenv("${AGENT_ENV.profile}") == "" {
		return
	}
	schedlabAgentSamples = make([]schedlabAgentMetrics.Sample, len(schedlabAgentMetricNames))
	for i, name := range schedlabAgentMetricNames {
		schedlabAgentSamples[i].Name = name
	}
	if schedlabAgentOS.Getenv("${AGENT_ENV.watch}") == "1" {
		schedlabAgentInterval = ${AGENT_PROBE_MS.base} * schedlabAgentTime.Millisecond
		schedlabAgentWatchTimer = schedlabAgentTime.AfterFunc(schedlabAgentInterval, schedlabAgentProbe)
	}
	// A main program's harness takes the profile when it stops the run at the deadline.
	if ms, err := schedlabAgentStrconv.Atoi(schedlabAgentOS.Getenv("${AGENT_ENV.deadlineMs}")); err == nil && ms > 0 && !isMain {
		deadline := schedlabAgentTime.Duration(ms) * schedlabAgentTime.Millisecond
		lead := deadline / 10
		if lead > schedlabAgentTime.Second {
			lead = schedlabAgentTime.Second
		}
		schedlabAgentDeadline = schedlabAgentTime.AfterFunc(deadline-lead, schedlabAgentBeforeDeadline)
	}
}

// schedlabAgentBeforeDeadline takes the profile shortly before a test binary's -test.timeout ends the run, so
// a run cut by its deadline still has the runtime's view (the end profile replaces it).
func schedlabAgentBeforeDeadline() {
	schedlabAgentMu.Lock()
	defer schedlabAgentMu.Unlock()
	if !schedlabAgentEnded {
		schedlabAgentWrite("deadline", schedlabAgentTake(false))
	}
}

// schedlabAgentProbe is one watchdog step (a timer callback): while goroutines run, are
// runnable or sit in system calls, nothing can be proven and the next probe comes soon; when
// none but the probe does, the leak profile decides, and each profile that proves no hang
// doubles the interval, so an idle process pays a GC at most every ${AGENT_PROBE_MS.most} ms.
func schedlabAgentProbe() {
	schedlabAgentMu.Lock()
	if schedlabAgentEnded {
		schedlabAgentMu.Unlock()
		return
	}
	if schedlabAgentBusy() {
		schedlabAgentInterval = ${AGENT_PROBE_MS.base} * schedlabAgentTime.Millisecond
	} else {
		profile := schedlabAgentTake(false)
		if profile == nil {
			schedlabAgentMu.Unlock()
			return
		}
		if wait, hung := schedlabAgentHung(profile); hung {
			schedlabAgentEnded = true
			schedlabAgentWrite("hang", profile)
			onHang := schedlabAgentOnHang
			schedlabAgentMu.Unlock()
			schedlabAgentStopHung(wait, onHang)
			return
		}
		schedlabAgentInterval *= 2
		if most := ${AGENT_PROBE_MS.most} * schedlabAgentTime.Millisecond; schedlabAgentInterval > most {
			schedlabAgentInterval = most
		}
	}
	schedlabAgentWatchTimer.Reset(schedlabAgentInterval)
	schedlabAgentMu.Unlock()
}

// schedlabAgentBusy reads whether any goroutine but the probe runs, is runnable or is in a
// system call: then no goroutine 1 can be proven stuck yet.
func schedlabAgentBusy() bool {
	schedlabAgentMetrics.Read(schedlabAgentSamples)
	limits := []uint64{1, 0, 0}
	for i, limit := range limits {
		value := schedlabAgentSamples[i].Value
		if value.Kind() == schedlabAgentMetrics.KindUint64 && value.Uint64() > limit {
			return true
		}
	}
	return false
}

// schedlabAgentTake returns the goroutine leak profile (debug=2: every goroutine, the ones the
// GC proved leaked marked "(leaked)"), or nil without one. A GC marks the tiny-allocation
// blocks the Ps are filling, so a small pointer-free primitive (a bare sync.Mutex, 8 bytes)
// allocated since the last GC reads as reachable, and the first GC of a process marks no such
// leak (measured on Go 1.26.8: the next profile did, the blocks being retired by then). So when
// some goroutine waits where a leak can be proven and is not marked, the profile is taken again:
// after the first GC of the process, or always (again: the end of the run, whose proof stays).
// A run whose goroutines have all ended pays one GC.
func schedlabAgentTake(again bool) []byte {
	profile := schedlabAgentPprof.Lookup("goroutineleak")
	if profile == nil {
		return nil
	}
	first := true
	if schedlabAgentSamples != nil {
		schedlabAgentMetrics.Read(schedlabAgentSamples)
		if cycles := schedlabAgentSamples[3].Value; cycles.Kind() == schedlabAgentMetrics.KindUint64 {
			first = cycles.Uint64() == 0
		}
	}
	text := schedlabAgentProfileText(profile)
	if (first || again) && text != nil && schedlabAgentMayLeak(text) {
		text = schedlabAgentProfileText(profile)
	}
	return text
}

func schedlabAgentProfileText(profile *schedlabAgentPprof.Profile) []byte {
	var buf schedlabAgentBytes.Buffer
	if err := profile.WriteTo(&buf, 2); err != nil {
		return nil
	}
	return buf.Bytes()
}

// schedlabAgentMayLeak: some goroutine of the profile, not marked leaked, waits in a channel
// operation, a select or a sync primitive, where the GC can prove a leak.
func schedlabAgentMayLeak(profile []byte) bool {
	for _, g := range schedlabAgentParse(profile) {
		if g.leaked {
			continue
		}
		w := g.wait
		if schedlabAgentStrings.HasPrefix(w, "chan ") || schedlabAgentStrings.HasPrefix(w, "select") ||
			schedlabAgentStrings.HasPrefix(w, "sync.") || w == "semacquire" {
			return true
		}
	}
	return false
}

// schedlabAgentWrite writes the profile file whole: a first line saying when it was taken,
// then the runtime's text; a temporary name renamed into place, so it is never half written.
func schedlabAgentWrite(taken string, profile []byte) {
	path := schedlabAgentOS.Getenv("${AGENT_ENV.profile}")
	if path == "" || profile == nil {
		return
	}
	data := append([]byte("${AGENT_PROFILE_HEADER}"+taken+"\\n"), profile...)
	if schedlabAgentOS.WriteFile(path+".tmp", data, 0644) == nil {
		schedlabAgentOS.Rename(path+".tmp", path)
	}
}

// schedlabAgentGoroutine is one goroutine of a debug=2 profile.
type schedlabAgentGoroutine struct {
	id        int
	wait      string
	leaked    bool
	functions []string
	createdBy string
}

// schedlabAgentParse reads the goroutines of a debug=2 profile: blocks separated by blank
// lines, each opening "goroutine N [wait (leaked), M minutes]:", then function lines (each
// followed by a tab-indented file:line) and "created by F in goroutine K".
func schedlabAgentParse(profile []byte) []schedlabAgentGoroutine {
	var out []schedlabAgentGoroutine
	for _, block := range schedlabAgentStrings.Split(string(profile), "\\n\\n") {
		lines := schedlabAgentStrings.Split(schedlabAgentStrings.TrimSpace(block), "\\n")
		head := lines[0]
		open := schedlabAgentStrings.Index(head, " [")
		if !schedlabAgentStrings.HasPrefix(head, "goroutine ") || open < 0 || !schedlabAgentStrings.HasSuffix(head, "]:") {
			continue
		}
		idText := head[len("goroutine "):open]
		if space := schedlabAgentStrings.Index(idText, " "); space >= 0 {
			idText = idText[:space] // "goroutine 7 gp=… m=… [": GOTRACEBACK=system and above
		}
		id, err := schedlabAgentStrconv.Atoi(idText)
		if err != nil {
			continue
		}
		status := head[open+2 : len(head)-2]
		g := schedlabAgentGoroutine{id: id, leaked: schedlabAgentStrings.Contains(status, " (leaked)")}
		if comma := schedlabAgentStrings.Index(status, ", "); comma >= 0 {
			status = status[:comma]
		}
		g.wait = schedlabAgentStrings.Replace(status, " (leaked)", "", 1)
		for _, line := range lines[1:] {
			if schedlabAgentStrings.HasPrefix(line, "\\t") {
				continue
			}
			if schedlabAgentStrings.HasPrefix(line, "created by ") {
				g.createdBy = schedlabAgentStrings.TrimPrefix(line, "created by ")
				continue
			}
			if paren := schedlabAgentStrings.LastIndex(line, "("); paren > 0 {
				g.functions = append(g.functions, line[:paren])
			}
		}
		out = append(out, g)
	}
	return out
}

// schedlabAgentHung applies the hang rule to a profile and returns goroutine 1's wait. A run
// hangs when goroutine 1 is leaked: it can never go on, so a test binary's tests can never
// finish. A main program whose goroutine 1 parks in a channel operation or select written in
// the user's main function itself (select {}, <-done: a daemon's idiom) hangs only when every
// other goroutine, but the agent's, the tracer's and the runtime's, is leaked too.
func schedlabAgentHung(profile []byte) (string, bool) {
	goroutines := schedlabAgentParse(profile)
	var first *schedlabAgentGoroutine
	for i := range goroutines {
		if goroutines[i].id == 1 {
			first = &goroutines[i]
		}
	}
	if first == nil || !first.leaked {
		return "", false
	}
	if !schedlabAgentIsMain || !schedlabAgentParksInMain(first) {
		return first.wait, true
	}
	for _, g := range goroutines {
		if g.id != 1 && !g.leaked && !schedlabAgentNotTheUsers(g) {
			return "", false
		}
	}
	return first.wait, true
}

// schedlabAgentParksInMain: the goroutine's innermost frame outside the runtime is the user's main.
func schedlabAgentParksInMain(g *schedlabAgentGoroutine) bool {
	for _, fn := range g.functions {
		if schedlabAgentStrings.HasPrefix(fn, "runtime.") {
			continue
		}
		return fn == "main.main" || fn == "main.schedlabUserMain"
	}
	return false
}

// schedlabAgentNotTheUsers: the agent's probe, the harness's goroutines, the tracer's reader,
// signal.Notify's loop and the runtime's own goroutines, which no hang waits for.
func schedlabAgentNotTheUsers(g schedlabAgentGoroutine) bool {
	if schedlabAgentStrings.HasPrefix(g.wait, "trace reader") {
		return true
	}
	for _, fn := range append(g.functions, g.createdBy) {
		if schedlabAgentStrings.Contains(fn, ".schedlabAgent") || schedlabAgentStrings.Contains(fn, "main.schedlabHarness") ||
			schedlabAgentStrings.HasPrefix(fn, "runtime/trace.") || schedlabAgentStrings.HasPrefix(fn, "os/signal.") {
			return true
		}
	}
	return schedlabAgentStrings.HasPrefix(g.createdBy, "runtime.")
}

// schedlabAgentStopHung ends a run the runtime proved hung (its profile is written): the
// trace is stopped (so it is complete), the end-of-run checks run, the dump is written with a
// first line naming goroutine 1's wait, one line goes to stderr, and the process exits
// ${AGENT_HANG_EXIT_CODE}.
func schedlabAgentStopHung(wait string, onHang func(header string)) {
	after := schedlabAgentTime.Since(schedlabAgentBegun)
	header := schedlabAgentFmt.Sprintf("${AGENT_DUMP_HEADER}code=${AGENT_HANG_EXIT_CODE} wait=%s after=%dms\\n",
		schedlabAgentStrconv.Quote(wait), after.Nanoseconds()/1e6)
	if onHang != nil {
		onHang(header)
	} else {
		// The execution trace -test.trace started: stopped, it is flushed to its file.
		schedlabAgentTrace.Stop()
		for _, check := range schedlabAgentHooks() {
			check()
		}
		if path := schedlabAgentOS.Getenv("${AGENT_ENV.dump}"); path != "" {
			schedlabAgentOS.WriteFile(path, append([]byte(header), schedlabAgentStack()...), 0644)
		}
	}
	schedlabAgentFmt.Fprintf(schedlabAgentOS.Stderr, "schedlab-agent: the runtime proved this run hung: goroutine 1 can never go on "+
		"(%s, leaked in the goroutine leak profile); stopped after %.1fs\\n", wait, after.Seconds())
	schedlabAgentOS.Exit(${AGENT_HANG_EXIT_CODE})
}

// schedlabAgentStack is the all-goroutine dump, its buffer grown until it fits (64 MiB at most).
func schedlabAgentStack() []byte {
	buf := make([]byte, 1<<16)
	for {
		n := schedlabAgentRuntime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// schedlabAgentClaimEnd claims the end of the run (false: it was claimed, by the end or a
// hang); the watchdog and the deadline profile stop. The caller holds schedlabAgentMu.
func schedlabAgentClaimEnd() bool {
	if schedlabAgentEnded {
		return false
	}
	schedlabAgentEnded = true
	if schedlabAgentWatchTimer != nil {
		schedlabAgentWatchTimer.Stop()
	}
	if schedlabAgentDeadline != nil {
		schedlabAgentDeadline.Stop()
	}
	return true
}

// schedlabAgentEnd takes the profile of the run's end (taken: "end", or "deadline" for a main
// program the harness stopped at its deadline) unless a hang was proven, then runs the hooks.
// The trace has stopped by then, so the profile runs at GOMAXPROCS 1: its GC's phases then
// need no other thread (measured on a loaded 2-core machine: 0.4 ms, against 2–7 ms with 2 Ps).
func schedlabAgentEnd(taken string) {
	schedlabAgentMu.Lock()
	claimed := schedlabAgentClaimEnd()
	if claimed && schedlabAgentOS.Getenv("${AGENT_ENV.profile}") != "" && schedlabAgentPprof.Lookup("goroutineleak") != nil {
		procs := schedlabAgentRuntime.GOMAXPROCS(1)
		schedlabAgentWrite(taken, schedlabAgentTake(true))
		schedlabAgentRuntime.GOMAXPROCS(procs)
	}
	schedlabAgentMu.Unlock()
	if claimed {
		for _, check := range schedlabAgentHooks() {
			check()
		}
	}
}
`;

/** A test binary's part: the trace stop, the deadline profile, the settle, TestMain and the exits of a user TestMain. */
function agentTestMain(userTestMain: boolean): string {
  const run = userTestMain
    ? `	${USER_TEST_MAIN}(m)
	// The user's TestMain returned (Go 1.15+): the testing package exits with m.Run's code.
	schedlabAgentSettle()
	schedlabAgentEnd("end")
`
    : `	code := m.Run()
	schedlabAgentSettle()
	schedlabAgentEnd("end")
	schedlabAgentOS.Exit(code)
`;
  return `
func init() {
	schedlabAgentBegin(false, nil)
}

// TestMain runs the tests (through the package's own TestMain when it has one), then takes the
// end profile once the goroutines have settled, and runs the end-of-run checks.
func TestMain(m *schedlabAgentTesting.M) {
${run}}

// schedlabAgentSettle lets goroutines settle before the end profile, as the harness does after
// a main program returns: polls runtime.NumGoroutine() with doubling sleeps from 100 µs until it
// stays the same for 3 polls, bounded by ${AGENT_ENV.settleMs} (default 100 ms). Only when a
// profile is wanted, and when any goroutine but this one is left (nothing else can settle).
func schedlabAgentSettle() {
	if schedlabAgentPprof.Lookup("goroutineleak") == nil || schedlabAgentOS.Getenv("${AGENT_ENV.profile}") == "" ||
		schedlabAgentRuntime.NumGoroutine() <= 1 {
		return
	}
${settleLoopGo("schedlabAgent", AGENT_ENV.settleMs)}
}

// schedlabAgentExit replaces os.Exit in the file of the package's own TestMain: the end
// profile first, then the exit.
func schedlabAgentExit(code int) {
	schedlabAgentSettle()
	schedlabAgentEnd("end")
	schedlabAgentOS.Exit(code)
}

// schedlabAgentLogFatal, …f and …ln replace log.Fatal, log.Fatalf and log.Fatalln there.
func schedlabAgentLogFatal(v ...interface{}) {
	schedlabAgentLog.Output(2, schedlabAgentFmt.Sprint(v...))
	schedlabAgentExit(1)
}

func schedlabAgentLogFatalf(format string, v ...interface{}) {
	schedlabAgentLog.Output(2, schedlabAgentFmt.Sprintf(format, v...))
	schedlabAgentExit(1)
}

func schedlabAgentLogFatalln(v ...interface{}) {
	schedlabAgentLog.Output(2, schedlabAgentFmt.Sprintln(v...))
	schedlabAgentExit(1)
}
`;
}
