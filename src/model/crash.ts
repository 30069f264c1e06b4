// Which runs ended by a crash: a Go panic or a fatal runtime error. Goroutines blocked at a
// crash were waiting when something else killed the program; they are not leaks. And a
// recorded run as the model reads it, how it ended included. Pure.

import type { GoroutineInfo } from "../core/index.js";
import type { LeakRun, RunEnd, RunStop, RuntimeView } from "./types.js";

/** The runtime's deadlock report: a fatal error, but the very signature of a deadlock. */
export const RUNTIME_DEADLOCK = /all goroutines are asleep - deadlock!/;

/** The runtime's names of the signals that kill a Go program (runtime/sigtab_linux_generic.go), as it prints them first. */
const FATAL_SIGNAL =
  /^(?:SIG(?:SEGV: segmentation violation|BUS: bus error|ABRT: abort|ILL: illegal instruction|FPE: floating-point exception|QUIT: quit|TRAP: trace trap|SYS: bad system call|STKFLT: stack fault)|Signal \d+)$/;

/** The first line of a Go crash report: a panic, a fatal runtime error (`fatal error: …`) or a fatal signal (`SIGSEGV: …`). */
export function isCrashStart(line: string): boolean {
  return line.startsWith("panic: ") || line.startsWith("fatal error: ") || FATAL_SIGNAL.test(line);
}

/** `-test.timeout` fires as a panic: the testing package's deadline, a hang rather than a crash. */
export const TEST_TIMEOUT = /^panic: test timed out after /;
const TEST_TIMEOUT_LINE = /^panic: test timed out after /m;

/**
 * Whether a run ended by a crash, from its outcome and output — its stderr tail and, when
 * recorded, its output digest (which keeps a crash's header however long the traceback after
 * it): outcome `panic`, or `exit-error` whose output has a crash's first line — except the
 * runtime's "all goroutines are asleep - deadlock!" and the testing package's "test timed
 * out", which end hangs, not crashes.
 */
export function runEndedByCrash(
  outcome: RunEnd,
  stderrTail: string | null,
  outputDigest: string | null = null,
): boolean {
  if (outcome !== "panic" && outcome !== "exit-error") return false;
  const text = outputDigest === null ? (stderrTail ?? "") : `${outputDigest}\n${stderrTail ?? ""}`;
  if (RUNTIME_DEADLOCK.test(text)) return false;
  if (text.split("\n").some((line) => isCrashStart(line) && !TEST_TIMEOUT.test(line))) return true;
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
  /** The failure-relevant lines of its whole output (runs.output_digest), when recorded. */
  readonly outputDigest?: string | null;
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
    runtimeDeadlock: RUNTIME_DEADLOCK.test(run.stderrTail ?? "") || RUNTIME_DEADLOCK.test(run.outputDigest ?? ""),
    crashed: runEndedByCrash(run.outcome, run.stderrTail, run.outputDigest ?? null),
    wallMs: run.wallMs,
    stop: run.stop ?? null,
    runtime: run.runtime ?? null,
    goroutines,
  };
}
