// Test failures and panics in a run's output, as `go test -v` (or a main program's stderr)
// prints them: which test failed, how, and with what message. Pure: text in, failures out.
// The budget's per-run check (src/collect/budget.ts) turns a failure that plain runs never
// show into a finding of class "failure" (docs/collect.md, "Stop rule").

import { shortFunction } from "../core/index.js";
import { isCrashStart, TEST_TIMEOUT } from "../model/index.js";
import { GOROUTINE_HEADER, isCrashHeader, TEST_HEADER, TEST_RESULT } from "./output-digest.js";
import { RACE_SEPARATOR } from "./races.js";
import type { TestFailure, UntracedOutcome } from "./types.js";

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

/** The runtime's deadlock report: a hang too (src/model/crash.ts), reported by the leak rule as the deadlock it is. */
const RUNTIME_DEADLOCK_LINE = /^fatal error: all goroutines are asleep - deadlock!/;
const LOG_AFTER = /^panic: Log in goroutine after (\S+) has completed/;
/** go test's and the binary's last lines, which end an Example's got/want block. */
const FINAL_LINE = /^(?:FAIL|PASS|ok)(?:\s|$)|^exit status \d+$/;
/** The testing package fails a test the race detector reported on: that is the race, counted as such, not a failure. */
const RACE_DETECTED = /^testing\.go:\d+: race detected during execution of test$/;
/** Goroutine blocks in a leak check's message: runtime.Stack's or goleak's form. */
const STACK_BLOCK = /^\s*(?:goroutine \d+ \[|\[Goroutine \d+ in state)/;
const FUNCTION_LINE = /^\S+\(.*\)$/;
const CREATED_BY = /^created by (\S+)(?: in goroutine (\d+))?/;
/** User frames shown in a crash's message. */
const PANIC_FRAMES = 2;
/**
 * The top-level directories of the standard library (GOROOT/src): a function of a package
 * under one of them is not user code, so a crash's message shows the user frames below it.
 */
const STANDARD_ROOTS = new Set(
  (
    "archive arena bufio builtin bytes cmp compress container context crypto database debug embed encoding " +
    "errors expvar flag fmt go hash html image index internal io iter log maps math mime net os path plugin " +
    "reflect regexp runtime simd slices sort strconv strings structs sync syscall testing text time unicode " +
    "unique unsafe vendor weak"
  ).split(" "),
);

/** One goroutine block of a traceback. */
interface GoroutineBlock {
  readonly id: string;
  /** Function lines, innermost first, with where each is ("file.go:LINE", or ""). */
  readonly frames: readonly { readonly fn: string; readonly at: string }[];
  readonly createdBy: { readonly fn: string; readonly goroutine: string | null } | null;
}

/** A crash as its report says: the header, the goroutine blocks of its traceback (the crashing one first). */
interface CrashReport {
  readonly kind: "panic" | "fatal";
  readonly header: string;
  readonly blocks: readonly GoroutineBlock[];
}

type TestStatus = "running" | "paused" | "done";

/**
 * The failures in `output` (a test binary's `-test.v` output — stderr and stdout in any
 * order — or a main program's stderr, or their digests, src/collect/output-digest.ts): the
 * crashes (panics and fatal errors), then the failed tests, each in the order they appear,
 * without repeats (a test failing in every -test.count iteration is listed once).
 */
export function parseFailures(output: string): TestFailure[] {
  const lines = output.split("\n");
  const failed: string[] = [];
  /** Lines a test logged while running (verbose mode). */
  const logged = new Map<string, string[]>();
  /** Lines indented under a "--- FAIL" line (non-verbose mode). */
  const under = new Map<string, string[]>();
  /** An Example's got/want block after its "--- FAIL" line. */
  const examples = new Map<string, string[]>();
  /** Each test's state after the last line that names it: what was running when the binary died. */
  const status = new Map<string, TestStatus>();
  const crashes: CrashReport[] = [];
  let current: string | null = null;
  let result: { name: string; indent: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.endsWith("\r") ? lines[i]!.slice(0, -1) : lines[i]!;
    const header = TEST_HEADER.exec(line);
    if (header !== null) {
      current = header[2]!;
      status.set(current, header[1] === "PAUSE" ? "paused" : "running");
      result = null;
      continue;
    }
    const res = TEST_RESULT.exec(line);
    if (res !== null) {
      const name = res[3]!;
      current = null;
      result = { name, indent: res[1]!.length };
      status.set(name, "done");
      if (res[2] === "FAIL" && !failed.includes(name)) failed.push(name);
      if (res[2] === "FAIL" && name.startsWith("Example")) {
        const block = exampleAt(lines, i + 1);
        if (block !== null) {
          examples.set(name, block.lines);
          i = block.next - 1;
          result = null;
        }
      }
      continue;
    }
    if (isCrashHeader(line)) {
      current = null;
      result = null;
      if (TEST_TIMEOUT.test(line) || RUNTIME_DEADLOCK_LINE.test(line)) continue;
      const { crash, next } = crashAt(lines, i);
      crashes.push(crash);
      i = next - 1;
      continue;
    }
    if (line.trim() === "") continue;
    // A race report (race builds print it on stderr, amid the test's log): the race class's.
    if (RACE_SEPARATOR.test(line) && lines[i + 1]?.startsWith("WARNING: DATA RACE") === true) {
      i++;
      while (i + 1 < lines.length && !RACE_SEPARATOR.test(lines[i + 1]!)) i++;
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

  const running = runningTests(status);
  const out: TestFailure[] = [];
  const claimed = new Set<string>();
  for (const crash of crashes) {
    const charged = chargedTests(crash, running);
    // tRunner prints "--- FAIL" for a test that panicked (and its parents): name the deepest.
    let test = charged[0] ?? null;
    if (test !== null) {
      const root = test;
      const named = failed.filter(
        (f) => (f === root || f.startsWith(`${root}/`)) && messageOf(f, under, logged, examples) === "",
      );
      for (const f of named) if (f.length > test.length) test = f;
      for (const f of named) claimed.add(f);
    }
    out.push({ test, kind: crash.kind, message: crashMessage(crash, charged), tracerInduced: false });
  }
  for (const name of failed) {
    if (claimed.has(name)) continue;
    const message = messageOf(name, under, logged, examples);
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

function messageOf(
  name: string,
  under: Map<string, string[]>,
  logged: Map<string, string[]>,
  examples: Map<string, string[]>,
): string {
  const example = examples.get(name);
  if (example !== undefined) return example.map((l) => l.trimEnd()).join("\n");
  return dedent(under.get(name) ?? logged.get(name) ?? []);
}

function dedent(lines: readonly string[]): string {
  const kept = lines.map((l) => l.replace(/\t/g, "    ").trimEnd()).filter((l) => l !== "");
  if (kept.length === 0) return "";
  const cut = Math.min(...kept.map(indentOf));
  return kept.map((l) => l.slice(cut)).join("\n");
}

/**
 * The got/want block of a failed Example starting at line `start` ("got:", its output,
 * "want:", the expected output; unindented), up to the next test, crash or final line; null
 * when the lines there are not one.
 */
function exampleAt(lines: readonly string[], start: number): { lines: string[]; next: number } | null {
  let i = start;
  while (i < lines.length && lines[i]!.trim() === "") i++;
  if (lines[i] !== "got:") return null;
  const block: string[] = [];
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (TEST_HEADER.test(line) || TEST_RESULT.test(line) || FINAL_LINE.test(line) || isCrashHeader(line)) break;
    block.push(line);
  }
  while (block.length > 0 && block.at(-1)!.trim() === "") block.pop();
  return { lines: block, next: i };
}

/** The crash report starting at line `start`: its kind, header and goroutine blocks, and the line after it. */
function crashAt(lines: readonly string[], start: number): { crash: CrashReport; next: number } {
  const header = lines[start]!.replace(/ \[recovered(?:, repanicked)?\]$/, "");
  const kind = header.startsWith("panic: ") ? "panic" : "fatal";
  let i = start + 1;
  while (
    i < lines.length &&
    !GOROUTINE_HEADER.test(lines[i]!) &&
    !isCrashStart(lines[i]!) &&
    !TEST_HEADER.test(lines[i]!) &&
    !TEST_RESULT.test(lines[i]!)
  )
    i++;
  const blocks: GoroutineBlock[] = [];
  while (i < lines.length && GOROUTINE_HEADER.test(lines[i]!)) {
    const id = GOROUTINE_HEADER.exec(lines[i]!)![1]!;
    i++;
    const frames: { fn: string; at: string }[] = [];
    let createdBy: GoroutineBlock["createdBy"] = null;
    for (; i < lines.length && lines[i]!.trim() !== ""; i++) {
      const line = lines[i]!;
      if (line.startsWith("\t") || line.startsWith("...")) continue;
      const created = CREATED_BY.exec(line);
      if (created !== null) {
        createdBy = { fn: created[1]!, goroutine: created[2] ?? null };
        continue;
      }
      // Not a frame: the traceback is over (e.g. go test's "FAIL\tpkg\t0.1s" right after it).
      if (!FUNCTION_LINE.test(line)) break;
      frames.push({ fn: line.replace(/\([^()]*\)$/, ""), at: fileLine(lines[i + 1]) });
    }
    blocks.push({ id, frames, createdBy });
    if (i < lines.length && lines[i]!.trim() !== "") break;
    while (i < lines.length && lines[i]!.trim() === "") i++;
  }
  return { crash: { kind, header, blocks }, next: i };
}

/** The tests whose status is running when the output ends, leaves only (a parent waits in t.Run for its subtest), in the order they started. */
function runningTests(status: ReadonlyMap<string, TestStatus>): string[] {
  const running = [...status].filter(([, s]) => s === "running").map(([name]) => name);
  return running.filter((t) => !running.some((other) => other.startsWith(`${t}/`)));
}

/**
 * The tests a crash is charged to, the first one charged: the test its goroutine belongs to
 * when the traceback names one (its frames or creator, then its creators' goroutines), else
 * the tests running when the binary died — those whose goroutines run a `testing.tRunner`
 * frame in the traceback (made precise by `running`, the `=== RUN` headers without a
 * result), else `running` itself.
 */
function chargedTests(crash: CrashReport, running: readonly string[]): string[] {
  const [first, ...others] = crash.blocks;
  const own = LOG_AFTER.exec(crash.header)?.[1] ?? (first === undefined ? null : testOfBlock(first));
  if (own !== null) return [own];
  const byId = new Map(crash.blocks.map((b) => [b.id, b]));
  const visited = new Set<string>();
  for (let creator = first?.createdBy?.goroutine ?? null; creator !== null && !visited.has(creator);) {
    visited.add(creator);
    const block = byId.get(creator);
    if (block === undefined) break;
    const test = testOfBlock(block);
    if (test !== null) return [test];
    creator = block.createdBy?.goroutine ?? null;
  }
  const roots = unique(others.map(testRunBy).filter((t): t is string => t !== null));
  if (roots.length === 0) return [...running];
  return unique(
    roots.flatMap((root) => {
      const precise = running.filter((t) => t === root || t.startsWith(`${root}/`));
      return precise.length > 0 ? precise : [root];
    }),
  );
}

/** The test a goroutine block's frames or creator name, innermost first. */
function testOfBlock(block: GoroutineBlock): string | null {
  for (const f of block.frames) {
    const test = testOfFunction(f.fn);
    if (test !== null) return test;
  }
  return block.createdBy === null ? null : testOfFunction(block.createdBy.fn);
}

/** The test a goroutine runs: the function just above its `testing.tRunner` frame, when that is a test's. */
function testRunBy(block: GoroutineBlock): string | null {
  const runner = block.frames.findIndex((f) => f.fn === "testing.tRunner");
  return runner <= 0 ? null : testOfFunction(block.frames[runner - 1]!.fn);
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}

/**
 * A crash's message: its header, the crashing goroutine's first user frames, and the running
 * tests when several were. A signal can land on a thread with no goroutine of the user's on
 * it (the traceback then opens with `goroutine 0 [idle]`): the frames are then those of the
 * charged test's goroutine.
 */
function crashMessage(crash: CrashReport, charged: readonly string[]): string {
  const userFrames = (b: GoroutineBlock | undefined) => (b?.frames ?? []).filter((f) => isUserFunction(f.fn));
  const crashing =
    userFrames(crash.blocks[0]).length > 0
      ? crash.blocks[0]
      : crash.blocks.find((b) => userFrames(b).length > 0 && charged.includes(testOfBlock(b) ?? testRunBy(b) ?? ""));
  const frames = userFrames(crashing).slice(0, PANIC_FRAMES);
  const shown = frames.map((f) => `    ${shortFunction(f.fn)}${f.at === "" ? "" : ` ${f.at}`}`);
  const tests = charged.length > 1 ? [`    running tests: ${charged.join(", ")}`] : [];
  return [crash.header, ...shown, ...tests].join("\n");
}

/** "pkg/path.TestWorker.func1" → "TestWorker"; null for a function outside a test. */
function testOfFunction(fn: string): string | null {
  const parts = fn.slice(fn.lastIndexOf("/") + 1).split(".");
  const name = parts[1];
  return name !== undefined && /^(?:Test|Example)(?:[^a-z].*)?$/.test(name) && name !== "TestMain" ? name : null;
}

/** A function of the program or its modules, not of the standard library (nor the runtime's `panic`). */
function isUserFunction(fn: string): boolean {
  if (!fn.includes(".")) return false;
  const root = fn.slice(0, fn.search(/[/.]/));
  return !STANDARD_ROOTS.has(root);
}

/** "\t/dir/file_test.go:15 +0xe6" → "file_test.go:15". */
function fileLine(line: string | undefined): string {
  const match = line === undefined ? null : /^\t(\S+?):(\d+)/.exec(line);
  return match === null ? "" : `${match[1]!.slice(match[1]!.lastIndexOf("/") + 1)}:${match[2]}`;
}

/** Added to the first line of a crash its untraced rerun did not repeat. */
export const TRACER_CRASH_NOTE =
  "crashed only under the execution tracer (the same binary passed when rerun without it)";

/**
 * Whether a traced run's failures call for a rerun without the tracer: a fatal runtime
 * error or fatal signal (not a Go panic, which the code raised, and not the deadlock report,
 * a hang) that is not already known to be the tracer's.
 */
export function needsUntracedRerun(failures: readonly TestFailure[]): boolean {
  return failures.some((f) => f.kind === "fatal" && !f.tracerInduced);
}

/**
 * The failures of a traced run, knowing how the same binary ended when rerun once without
 * the tracer (null: not rerun). When it passed, each fatal crash was the tracer's, not the
 * code's: it is marked tracerInduced and its message says so on its first line, above the
 * crash header and stack. Otherwise the failures are as parsed. Pure.
 */
export function withUntracedRerun(failures: readonly TestFailure[], untraced: UntracedOutcome | null): TestFailure[] {
  if (untraced !== "ok") return [...failures];
  return failures.map((f) => {
    if (f.kind !== "fatal" || f.tracerInduced) return f;
    const [first, ...rest] = f.message.split("\n");
    return { ...f, tracerInduced: true, message: [`${first} — ${TRACER_CRASH_NOTE}`, ...rest].join("\n") };
  });
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
