// Tests that fail on some schedules and pass on others ("flaky under schedule"), and
// failures the execution tracer itself caused, from the outputs of a program's runs.
// The failure parser is collect's (src/collect/failures.ts); the rule is here. Pure.

import type { TestFailure } from "../collect/index.js";

/** Failures on stderr/stdout that belong to another finding: the race detector marks racing tests failed. */
const RACE_FAILURE = /race detected during execution of test/;

/** One run of a program as the flaky rule reads it. */
export interface FailureRun {
  readonly runId: number;
  readonly config: string;
  readonly strategy: "plain" | "race" | "perturb";
  readonly seed: number | null;
  /** The deadline or a kill cut the run: it says nothing about passing. */
  readonly cut: boolean;
  readonly failures: readonly TestFailure[];
}

/** A test that failed or panicked in some runs of a program and passed in others. */
export interface FlakyFinding {
  readonly program: string;
  /** The test as `go test -run` names it; null for a main program. */
  readonly test: string | null;
  readonly kind: TestFailure["kind"];
  /** The failure text of the first failing run. */
  readonly message: string;
  readonly runsFailed: number;
  /** Runs that finished without this failure. */
  readonly runsPassed: number;
  /** Of the failing runs, how many were plain (0: it fails only under perturbation, -race or another GOMAXPROCS). */
  readonly plainRunsFailed: number;
  /** Strategies and configurations of the failing runs. */
  readonly strategies: readonly string[];
  /** The first failing run, to replay: same build, GOMAXPROCS and seed. */
  readonly run: {
    readonly runId: number;
    readonly config: string;
    readonly strategy: string;
    readonly seed: number | null;
  };
  readonly replay: string;
}

/** A failure caused by the tracer (a leak check that saw the trace reader), with the fix. */
export interface TracerInducedFailure {
  readonly program: string;
  readonly test: string | null;
  readonly message: string;
  readonly runs: number;
}

/**
 * The flaky tests of one program: each test (or main program) that failed in at least one
 * run and finished without that failure in at least one other, leaving out failures the
 * tracer caused and the race detector's. `replayOf` gives the command that reruns a run.
 */
export function detectFlaky(
  program: string,
  runs: readonly FailureRun[],
  replayOf: (runId: number) => string,
): FlakyFinding[] {
  const failing = new Map<string, { test: string | null; first: TestFailure; runs: FailureRun[] }>();
  for (const run of runs) {
    for (const failure of run.failures) {
      if (failure.tracerInduced || RACE_FAILURE.test(failure.message)) continue;
      const key = failure.test ?? "";
      const entry = failing.get(key) ?? { test: failure.test, first: failure, runs: [] };
      if (!entry.runs.includes(run)) entry.runs.push(run);
      failing.set(key, entry);
    }
  }
  const findings: FlakyFinding[] = [];
  for (const [, entry] of [...failing].sort(([a], [b]) => a.localeCompare(b))) {
    const passed = runs.filter((r) => !r.cut && !entry.runs.includes(r));
    if (passed.length === 0) continue;
    const first = entry.runs[0]!;
    findings.push({
      program,
      test: entry.test,
      kind: entry.first.kind,
      message: entry.first.message,
      runsFailed: entry.runs.length,
      runsPassed: passed.length,
      plainRunsFailed: entry.runs.filter((r) => r.strategy === "plain").length,
      strategies: [...new Set(entry.runs.map((r) => `${r.strategy} ${r.config}`))].sort(),
      run: { runId: first.runId, config: first.config, strategy: first.strategy, seed: first.seed },
      replay: replayOf(first.runId),
    });
  }
  return findings;
}

/** The tracer-induced failures of one program, one per test. */
export function detectTracerInduced(program: string, runs: readonly FailureRun[]): TracerInducedFailure[] {
  const byTest = new Map<string, TracerInducedFailure>();
  for (const run of runs) {
    for (const f of run.failures) {
      if (!f.tracerInduced) continue;
      const key = f.test ?? "";
      const seen = byTest.get(key);
      byTest.set(
        key,
        seen === undefined ? { program, test: f.test, message: f.message, runs: 1 } : { ...seen, runs: seen.runs + 1 },
      );
    }
  }
  return [...byTest.values()];
}
