// Failures as findings, from the outputs of a program's runs (plain, perturbed and -race
// alike): per program and test, a test that fails in every run that said something of it
// (failing), one that fails on some schedules and passes on others (flaky), a crash that
// killed the binary in every such run (crashed), and failures the execution tracer itself
// caused (tracer-induced: a leak check that saw the trace reader, a crash the untraced rerun
// did not repeat). The failure parser is collect's (src/collect/failures.ts); the rules are
// here (docs/leaks.md, "Failing, flaky and crashing tests"). Pure.

import type { TestFailure, UntracedOutcome } from "../collect/index.js";

/** Failures on stderr/stdout that belong to another finding: the race detector marks racing tests failed. */
const RACE_FAILURE = /race detected during execution of test/;

/** One run of a program as the failure rules read it. */
export interface FailureRun {
  readonly runId: number;
  readonly config: string;
  readonly strategy: "plain" | "race" | "perturb";
  readonly seed: number | null;
  /** The deadline or a kill cut the run: it says nothing about passing. */
  readonly cut: boolean;
  /** How the binary ended when rerun without the tracer after a fatal crash (runs.untraced); null or absent when not rerun. */
  readonly untraced?: UntracedOutcome | null;
  readonly failures: readonly TestFailure[];
}

/** The run a finding names to replay: same build, GOMAXPROCS and seed. */
export interface FailureRunRef {
  readonly runId: number;
  readonly config: string;
  readonly strategy: string;
  readonly seed: number | null;
}

/** A test that failed or crashed in some runs of a program and passed in others. */
export interface FlakyFinding {
  readonly program: string;
  /** The test as `go test -run` names it; null for a main program. */
  readonly test: string | null;
  readonly kind: TestFailure["kind"];
  /** The failure text of the first failing run. */
  readonly message: string;
  /** One line of it that says what failed (failureSummary): a table's failure column. */
  readonly summary: string;
  readonly runsFailed: number;
  /** Runs that finished without this failure. */
  readonly runsPassed: number;
  /** Of the failing runs, how many were plain (0: it fails only under perturbation, -race or another GOMAXPROCS). */
  readonly plainRunsFailed: number;
  /** Strategies and configurations of the failing runs. */
  readonly strategies: readonly string[];
  /** The first failing run, to replay: same build, GOMAXPROCS and seed. */
  readonly run: FailureRunRef;
  readonly replay: string;
}

/** A test that failed (t.Error, t.Fatal, an Example's output) in every run that said something of it, plain runs included. */
export interface FailingFinding {
  readonly program: string;
  readonly test: string | null;
  /** The failure text of the first failing run (an Example's got/want). */
  readonly message: string;
  /** One line of it that says what failed (failureSummary). */
  readonly summary: string;
  readonly runsFailed: number;
  /** Of those, how many were plain. */
  readonly plainRunsFailed: number;
  /** Failing runs the deadline cut (counted in runsFailed: the failure came before the cut). */
  readonly cutRunsFailed: number;
  readonly strategies: readonly string[];
  readonly run: FailureRunRef;
  readonly replay: string;
}

/** A panic or fatal error that killed the binary in every run that said something of its test, not caused by the tracer. */
export interface CrashFinding {
  readonly program: string;
  /** The test the crash is charged to (its goroutine's, else the running test's); null in a main program or when none was running. */
  readonly test: string | null;
  /** panic: a Go panic; fatal: a fatal runtime error or signal. */
  readonly kind: "panic" | "fatal";
  /** The crash's first line: `panic: …`, `fatal error: …`, `SIGSEGV: segmentation violation`. */
  readonly header: string;
  /** Its header, the crashing goroutine's first user frames and, when several tests were running, their names. */
  readonly message: string;
  /** Those user frames, "function file.go:LINE", innermost first. */
  readonly stack: readonly string[];
  readonly runsCrashed: number;
  readonly plainRunsCrashed: number;
  readonly strategies: readonly string[];
  /** How the binary ended when rerun untraced after the first crash (a fatal one): crashed again, failed, or null when not rerun (a panic). */
  readonly untraced: UntracedOutcome | null;
  readonly run: FailureRunRef;
  readonly replay: string;
}

/** A failure caused by the tracer: a leak check that saw the trace reader (with the fix), or a crash its untraced rerun did not repeat. */
export interface TracerInducedFailure {
  readonly program: string;
  readonly test: string | null;
  readonly kind: TestFailure["kind"];
  readonly message: string;
  readonly runs: number;
  /** How the binary ended untraced: ok for a crash the tracer caused; null for a leak check's failure (not rerun). */
  readonly untraced: UntracedOutcome | null;
  /** The first run it showed in, to replay. */
  readonly run: FailureRunRef;
  readonly replay: string;
}

/** Every failure finding of one program. */
export interface TestFailureFindings {
  readonly failing: readonly FailingFinding[];
  readonly flaky: readonly FlakyFinding[];
  readonly crashed: readonly CrashFinding[];
  readonly tracerInduced: readonly TracerInducedFailure[];
}

function runRef(run: FailureRun): FailureRunRef {
  return { runId: run.runId, config: run.config, strategy: run.strategy, seed: run.seed };
}

function strategiesOf(runs: readonly FailureRun[]): string[] {
  return [...new Set(runs.map((r) => `${r.strategy} ${r.config}`))].sort();
}

function isCrash(failure: TestFailure): boolean {
  return failure.kind === "panic" || failure.kind === "fatal";
}

/** What one line of an Example's output shows at most, the rest elided. */
const SUMMARY_OUTPUT = 60;

/**
 * One line that says what a failure was, for a table's failure column: an Example's got/want
 * block (its message opens with "got:") as the first line where they differ, "got workers: 2;
 * want workers: 1" ("line 3: got …" below the first line, "nothing" past an output's end),
 * else the first line that is not empty; "(no message)" for none. Never empty, whatever the
 * message's first line is.
 */
export function failureSummary(message: string): string {
  const lines = message.split("\n").map((l) => l.trimEnd());
  const got = lines.findIndex((l) => l.trim() !== "");
  const want = lines.findIndex((l, i) => i > got && l.trim() === "want:");
  if (got >= 0 && lines[got].trim() === "got:" && want > got) {
    const [output, wanted] = [lines.slice(got + 1, want), lines.slice(want + 1)];
    while (wanted.length > 0 && wanted.at(-1) === "") wanted.pop();
    const length = Math.max(output.length, wanted.length);
    let at = 0;
    while (at < length && output[at] === wanted[at]) at++;
    if (at === length) at = 0; // the same lines in another order (// Unordered output): the first
    const show = (l: string | undefined): string =>
      l === undefined ? "nothing" : l.length > SUMMARY_OUTPUT ? `${l.slice(0, SUMMARY_OUTPUT)}…` : l;
    return `${at > 0 ? `line ${at + 1}: ` : ""}got ${show(output[at])}; want ${show(wanted[at])}`;
  }
  return got < 0 ? "(no message)" : lines[got].trim();
}

/** The user frames of a crash's message: its lines after the header that are "function file:line". */
function crashFrames(message: string): string[] {
  return message
    .split("\n")
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => !l.startsWith("running tests:") && l !== "");
}

/**
 * The failure findings of one program, per test (a main program's: test null): each test
 * with a failure (not the tracer's, not the race detector's) in some run is
 *   - flaky when some other run passed it: finished (not cut) without that failure and
 *     without a crash charged to another test, which would have ended the binary before it;
 *   - else crashed when any of its failures is a crash (a panic or fatal error: the crash, its
 *     runs and its replay are reported, even if other runs only failed it), else failing.
 * The tracer's failures are listed apart, one per test and kind. `replayOf` gives the
 * command that reruns a run.
 */
export function detectTestFailures(
  program: string,
  runs: readonly FailureRun[],
  replayOf: (runId: number) => string,
): TestFailureFindings {
  const failing = new Map<
    string,
    {
      test: string | null;
      first: TestFailure;
      crash: { failure: TestFailure; run: FailureRun } | null;
      runs: FailureRun[];
    }
  >();
  for (const run of runs) {
    for (const failure of run.failures) {
      if (failure.tracerInduced || RACE_FAILURE.test(failure.message)) continue;
      const key = failure.test ?? "";
      const entry = failing.get(key) ?? { test: failure.test, first: failure, crash: null, runs: [] };
      if (!entry.runs.includes(run)) entry.runs.push(run);
      // A crash is what it says most about the test, even if other runs only failed it (another schedule, GOMAXPROCS 1).
      if (entry.crash === null && isCrash(failure)) entry.crash = { failure, run };
      failing.set(key, entry);
    }
  }
  const out = { failing: [] as FailingFinding[], flaky: [] as FlakyFinding[], crashed: [] as CrashFinding[] };
  for (const [key, entry] of [...failing].sort(([a], [b]) => a.localeCompare(b))) {
    const passed = runs.filter(
      (r) =>
        !r.cut &&
        !entry.runs.includes(r) &&
        !r.failures.some((f) => isCrash(f) && !f.tracerInduced && (f.test ?? "") !== key),
    );
    const first = entry.runs[0]!;
    const plain = entry.runs.filter((r) => r.strategy === "plain").length;
    const strategies = strategiesOf(entry.runs);
    const run = runRef(first);
    const replay = replayOf(first.runId);
    const test = entry.test;
    const { message, kind } = entry.first;
    const summary = failureSummary(message);
    if (passed.length > 0) {
      out.flaky.push({
        program,
        test,
        kind,
        message,
        summary,
        runsFailed: entry.runs.length,
        runsPassed: passed.length,
        plainRunsFailed: plain,
        strategies,
        run,
        replay,
      });
    } else if (entry.crash === null) {
      const cutRunsFailed = entry.runs.filter((r) => r.cut).length;
      out.failing.push({
        program,
        test,
        message,
        summary,
        runsFailed: entry.runs.length,
        plainRunsFailed: plain,
        cutRunsFailed,
        strategies,
        run,
        replay,
      });
    } else {
      const crash = entry.crash;
      const crashRuns = entry.runs.filter((r) => r.failures.some((f) => isCrash(f) && (f.test ?? "") === key));
      out.crashed.push({
        program,
        test,
        kind: crash.failure.kind === "panic" ? "panic" : "fatal",
        header: crash.failure.message.split("\n")[0] ?? "",
        message: crash.failure.message,
        stack: crashFrames(crash.failure.message),
        runsCrashed: crashRuns.length,
        plainRunsCrashed: crashRuns.filter((r) => r.strategy === "plain").length,
        strategies: strategiesOf(crashRuns),
        untraced: crash.run.untraced ?? null,
        run: runRef(crash.run),
        replay: replayOf(crash.run.runId),
      });
    }
  }
  return { ...out, tracerInduced: detectTracerInduced(program, runs, replayOf) };
}

/** The tracer-induced failures of one program, one per test and kind, with the first run's untraced outcome. */
export function detectTracerInduced(
  program: string,
  runs: readonly FailureRun[],
  replayOf: (runId: number) => string,
): TracerInducedFailure[] {
  const byTest = new Map<string, TracerInducedFailure>();
  for (const run of runs) {
    for (const f of run.failures) {
      if (!f.tracerInduced) continue;
      const key = `${f.test ?? ""}\0${f.kind}`;
      const seen = byTest.get(key);
      byTest.set(
        key,
        seen === undefined
          ? {
              program,
              test: f.test,
              kind: f.kind,
              message: f.message,
              runs: 1,
              untraced: f.kind === "fail" ? null : (run.untraced ?? null),
              run: runRef(run),
              replay: replayOf(run.runId),
            }
          : { ...seen, runs: seen.runs + 1 },
      );
    }
  }
  return [...byTest.values()];
}
