// Which runs ended by a crash: a Go panic or a fatal runtime error. Goroutines blocked at a
// crash were waiting when something else killed the program; they are not leaks. And a
// recorded run as the model reads it, how it ended included. Pure.

import type { GoroutineInfo } from "../core/index.js";
import type { LeakRun, RunEnd, RunStop, RuntimeView } from "./types.js";

/** The runtime's deadlock report: a fatal error, but the very signature of a deadlock. */
export const RUNTIME_DEADLOCK = /all goroutines are asleep - deadlock!/;

/** A line that starts a Go crash report. */
const CRASH_LINE = /^(?:panic: |fatal error: )(.*)$/gm;

/** `-test.timeout` fires as a panic: the testing package's deadline, a hang rather than a crash. */
const TEST_TIMEOUT = /^test timed out after /;
const TEST_TIMEOUT_LINE = /^panic: test timed out after /m;

/**
 * Whether a run ended by a crash, from its outcome and stderr tail: outcome `panic`, or
 * `exit-error` whose stderr has a `panic: ` or `fatal error: ` line — except the runtime's
 * "all goroutines are asleep - deadlock!" and the testing package's "test timed out",
 * which end hangs, not crashes.
 */
export function runEndedByCrash(outcome: RunEnd, stderrTail: string | null): boolean {
  if (outcome !== "panic" && outcome !== "exit-error") return false;
  const text = stderrTail ?? "";
  if (RUNTIME_DEADLOCK.test(text)) return false;
  if ([...text.matchAll(CRASH_LINE)].some((m) => !TEST_TIMEOUT.test(m[1]))) return true;
  // collect says `panic` from the exit code and the harness: a tail that lost the crash line is still one.
  return outcome === "panic" && !TEST_TIMEOUT_LINE.test(text);
}

/** What collect recorded of a run that ran (a runs row), as the model reads it. */
export interface RecordedRun {
  readonly id: number;
  readonly runIndex: number;
  readonly config: string;
  readonly outcome: RunEnd;
  readonly stderrTail: string | null;
  readonly wallMs: number | null;
  /** Why collect stopped it (runs.stop_reason); absent or null: it ended by itself, or it was not recorded. */
  readonly stop?: RunStop | null;
  /** The runtime's view of its goroutines (runtime_goroutines, or a goroutine dump), if any. */
  readonly runtime?: RuntimeView | null;
}

/**
 * A recorded run with its user goroutines as the fold and the rule take it. One function for
 * `leaks` and for ingest's --store summary, so both fold a run from the same view of it.
 */
export function leakRunOf(run: RecordedRun, goroutines: readonly GoroutineInfo[]): LeakRun {
  return {
    runId: run.id,
    runIndex: run.runIndex,
    config: run.config,
    outcome: run.outcome,
    runtimeDeadlock: RUNTIME_DEADLOCK.test(run.stderrTail ?? ""),
    crashed: runEndedByCrash(run.outcome, run.stderrTail),
    wallMs: run.wallMs,
    stop: run.stop ?? null,
    runtime: run.runtime ?? null,
    goroutines,
  };
}
