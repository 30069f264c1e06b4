// Test failures and panics in a run's output, as `go test -v` (or a main program's stderr)
// prints them: which test failed, how, and with what message. Pure: text in, failures out.
// The budget's per-run check (src/collect/budget.ts) turns a failure that plain runs never
// show into a finding of class "failure" (docs/collect.md, "Stop rule").

import type { TestFailure } from "./types.js";

/**
 * The execution tracer's own reader goroutine, started by runtime/trace (and so by
 * -test.trace) in Go 1.26. Found by experiment: a test run with -test.trace printing
 * runtime.Stack(all) shows it as
 *   goroutine 6 [trace reader (blocked)]:
 *   runtime.ReadTrace() …
 *   runtime/trace.(*traceMultiplexer).startLocked.func1() …
 * A goroutine leak check inside a test suite that does not know it reports it as a leak.
 */
export const TRACER_GOROUTINE_FUNCTION = "runtime/trace.(*traceMultiplexer).startLocked.func1";

/** How to silence a leak check that sees the tracer's goroutine; added to such a failure's message. */
export const TRACER_INDUCED_FIX =
  `the leak check saw the execution tracer's own goroutine (${TRACER_GOROUTINE_FUNCTION}), not a leak of the code under test: ` +
  (`ignore it, e.g. goleak.IgnoreAnyFunction("${TRACER_GOROUTINE_FUNCTION}") (goleak.IgnoreTopFunction ` +
    `does not match it: the top of its stack is runtime.ReadTrace), `) +
  "or skip stacks that contain it in a hand-written runtime.Stack scan";

const HEADER = /^=== (?:RUN|CONT|NAME|PAUSE)\s+(\S+)/;
const RESULT = /^(\s*)--- (FAIL|PASS|SKIP): (\S+) \(/;
/** The testing package's own deadline: a hang, which the leak rule judges, not a failure. */
const TEST_TIMEOUT = /^panic: test timed out after /;
const CRASH = /^(panic: |fatal error: )/;
const LOG_AFTER = /^panic: Log in goroutine after (\S+) has completed/;
const GOROUTINE_HEADER = /^goroutine \d+ \[/;
/** The testing package fails a test the race detector reported on: that is the race, counted as such, not a failure. */
const SEPARATOR = /^={10,}$/;
const RACE_DETECTED = /^testing\.go:\d+: race detected during execution of test$/;
/** Goroutine blocks in a leak check's message: runtime.Stack's or goleak's form. */
const STACK_BLOCK = /^\s*(?:goroutine \d+ \[|\[Goroutine \d+ in state)/;
/** User frames shown in a panic's message. */
const PANIC_FRAMES = 2;

interface Panic {
  readonly test: string | null;
  readonly message: string;
}

/**
 * The failures in `output` (a test binary's `-test.v` output — stderr and stdout in any
 * order — or a main program's stderr): the panics, then the failed tests, each in the
 * order they appear, without repeats (a test failing in every -test.count iteration is
 * listed once).
 */
export function parseFailures(output: string): TestFailure[] {
  const lines = output.split("\n");
  const failed: string[] = [];
  /** Lines a test logged while running (verbose mode). */
  const logged = new Map<string, string[]>();
  /** Lines indented under a "--- FAIL" line (non-verbose mode). */
  const under = new Map<string, string[]>();
  const panics: Panic[] = [];
  let current: string | null = null;
  let result: { name: string; indent: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = HEADER.exec(line);
    if (header !== null) {
      current = header[1]!;
      result = null;
      continue;
    }
    const res = RESULT.exec(line);
    if (res !== null) {
      current = null;
      result = { name: res[3]!, indent: res[1]!.length };
      if (res[2] === "FAIL" && !failed.includes(res[3]!)) failed.push(res[3]!);
      continue;
    }
    if (CRASH.test(line)) {
      current = null;
      result = null;
      if (TEST_TIMEOUT.test(line)) continue;
      const { panic, next } = panicAt(lines, i);
      panics.push(panic);
      i = next - 1;
      continue;
    }
    if (line.trim() === "") continue;
    // A race report (race builds print it on stderr, amid the test's log): the race class's.
    if (SEPARATOR.test(line) && lines[i + 1]?.startsWith("WARNING: DATA RACE") === true) {
      i++;
      while (i + 1 < lines.length && !SEPARATOR.test(lines[i + 1]!)) i++;
      i++;
      continue;
    }
    if (result !== null && indentOf(line) > result.indent && !line.trimStart().startsWith("--- ")) {
      push(under, result.name, line);
    } else if (current !== null && line.startsWith("    ")) {
      push(logged, current, line);
    } else {
      // Unindented text (the program's own prints, a race report on stderr) may interleave
      // with a running test's log: it ends a result's lines, not the test's.
      result = null;
    }
  }

  const out: TestFailure[] = [];
  const claimed = new Set<string>();
  for (const p of panics) {
    // tRunner prints "--- FAIL" for a test that panicked (and its parents): name the deepest.
    let test = p.test;
    if (test !== null) {
      const root = test;
      const named = failed.filter(
        (f) => (f === root || f.startsWith(`${root}/`)) && messageOf(f, under, logged) === "",
      );
      for (const f of named) if (f.length > test.length) test = f;
      for (const f of named) claimed.add(f);
    }
    out.push({ test, kind: "panic", message: p.message, tracerInduced: false });
  }
  for (const name of failed) {
    if (claimed.has(name)) continue;
    const message = messageOf(name, under, logged);
    // A parent fails because a subtest did: the subtest is the failure.
    if (message === "" && failed.some((f) => f.startsWith(`${name}/`))) continue;
    if (message !== "" && message.split("\n").every((line) => RACE_DETECTED.test(line))) continue;
    const tracerInduced = isTracerInduced(message);
    out.push({
      test: name,
      kind: "fail",
      message: tracerInduced ? `${message}\n${TRACER_INDUCED_FIX}` : message,
      tracerInduced,
    });
  }
  const seen = new Set<string>();
  return out.filter((f) => {
    const key = `${f.kind}\0${f.test ?? ""}\0${f.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function push(map: Map<string, string[]>, key: string, line: string): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [line]);
  else list.push(line);
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function messageOf(name: string, under: Map<string, string[]>, logged: Map<string, string[]>): string {
  return dedent(under.get(name) ?? logged.get(name) ?? []);
}

function dedent(lines: readonly string[]): string {
  const kept = lines.map((l) => l.replace(/\t/g, "    ").trimEnd()).filter((l) => l !== "");
  if (kept.length === 0) return "";
  const cut = Math.min(...kept.map(indentOf));
  return kept.map((l) => l.slice(cut)).join("\n");
}

/** The panic starting at line `start`: its message, the test its traceback names, and the line after it. */
function panicAt(lines: readonly string[], start: number): { panic: Panic; next: number } {
  const first = lines[start]!.replace(/ \[recovered(?:, repanicked)?\]$/, "");
  let i = start + 1;
  while (
    i < lines.length &&
    !GOROUTINE_HEADER.test(lines[i]!) &&
    !CRASH.test(lines[i]!) &&
    !HEADER.test(lines[i]!) &&
    !RESULT.test(lines[i]!)
  )
    i++;
  const frames: { fn: string; at: string }[] = [];
  let test: string | null = LOG_AFTER.exec(first)?.[1] ?? null;
  if (i < lines.length && GOROUTINE_HEADER.test(lines[i]!)) {
    i++;
    for (; i < lines.length && lines[i]!.trim() !== ""; i++) {
      const line = lines[i]!;
      if (line.startsWith("\t")) continue;
      const created = /^created by (\S+)/.exec(line);
      // Not a frame: the traceback is over (e.g. go test's "FAIL\tpkg\t0.1s" right after it).
      if (created === null && !/^\S+\(.*\)$/.test(line)) break;
      const fn = created?.[1] ?? line.replace(/\(.*\)$/, "");
      test ??= testOfFunction(fn);
      if (created === null && isUserFunction(fn)) frames.push({ fn, at: fileLine(lines[i + 1]) });
    }
  }
  const shown = frames.slice(0, PANIC_FRAMES).map((f) => `    ${shortFunction(f.fn)}${f.at === "" ? "" : ` ${f.at}`}`);
  return { panic: { test, message: [first, ...shown].join("\n") }, next: i };
}

/** "pkg/path.TestWorker.func1" → "TestWorker"; null for a function outside a test. */
function testOfFunction(fn: string): string | null {
  const parts = fn.slice(fn.lastIndexOf("/") + 1).split(".");
  const name = parts[1];
  return name !== undefined && /^Test(?:[^a-z].*)?$/.test(name) ? name : null;
}

function isUserFunction(fn: string): boolean {
  return !/^(?:runtime|testing|panic)(?:[.(]|$)/.test(fn) && !fn.startsWith("runtime/");
}

/** "pkg/path.lookup" → "path.lookup". */
function shortFunction(fn: string): string {
  return fn.slice(fn.lastIndexOf("/") + 1);
}

/** "\t/dir/file_test.go:15 +0xe6" → "file_test.go:15". */
function fileLine(line: string | undefined): string {
  const match = line === undefined ? null : /^\t(\S+?):(\d+)/.exec(line);
  return match === null ? "" : `${match[1]!.slice(match[1]!.lastIndexOf("/") + 1)}:${match[2]}`;
}

/**
 * The run agent's functions (src/collect/agent.ts): its watchdog probe is a timer callback
 * that a leak check may catch running (taking the leak profile), schedlab's like the tracer's reader.
 */
const AGENT_FUNCTION = ".schedlabAgent";

/**
 * A failure message that lists goroutines, every one of them the tracer's reader (or the run
 * agent's probe beside it): a leak check (goleak's or a runtime.Stack scan) that saw only
 * schedlab's goroutines. A message naming the tracer beside other goroutines is a real leak
 * report and stays one.
 */
function isTracerInduced(message: string): boolean {
  if (!message.includes(TRACER_GOROUTINE_FUNCTION)) return false;
  const blocks: string[][] = [];
  for (const line of message.split("\n")) {
    if (STACK_BLOCK.test(line)) blocks.push([line]);
    else blocks.at(-1)?.push(line);
  }
  return blocks.every((block) =>
    block.some((line) => line.includes(TRACER_GOROUTINE_FUNCTION) || line.includes(AGENT_FUNCTION)),
  );
}
