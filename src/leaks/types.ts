// Types of the leaks stage: the runs it reads, the per-run final states it derives, and
// the findings, early-detection curves and scores it reports (docs/leaks.md).

import type { GoroutineInfo } from "../trace/types.js";

/** Block reasons that can never end by themselves: only another goroutine can wake them. */
export const LEAK_REASONS = ["chan send", "chan receive", "select", "sync", "sync.(*Cond).Wait", "forever"] as const;
export type LeakReason = (typeof LEAK_REASONS)[number];

export function isLeakReason(reason: string): reason is LeakReason {
  return (LEAK_REASONS as readonly string[]).includes(reason);
}

/** How a run ended, as collect recorded it (runs.outcome). */
export type RunEnd = "ok" | "exit-error" | "panic" | "timeout" | "killed";

/**
 * One ingested run of a program: how it ended and its user goroutines. Its records are
 * not held here: they are streamed through runStateFold, which keeps per-goroutine state.
 */
export interface LeakRun {
  readonly runId: number;
  readonly runIndex: number;
  readonly config: string;
  readonly outcome: RunEnd;
  /** The runtime reported "all goroutines are asleep - deadlock!" (stderr). */
  readonly runtimeDeadlock: boolean;
  /**
   * The run ended by a panic or a fatal error other than the runtime's deadlock report
   * (runEndedByCrash): whatever was blocked then was merely waiting, not leaked.
   */
  readonly crashed: boolean;
  readonly goroutines: readonly GoroutineInfo[];
}

/** A run with what its records say about each goroutine at its end: the detector's input. */
export interface AnalysedRun {
  readonly run: LeakRun;
  readonly states: RunGoroutineStates;
}

/** The analysed runs of one program. */
export interface ProgramRuns {
  readonly program: string;
  readonly runs: readonly AnalysedRun[];
}

/** A goroutine's last real block in one run, if it was never woken from it. */
export interface FinalBlock {
  readonly canonicalId: string;
  readonly reason: LeakReason;
  /** Top user frame at the block, "function file:line". */
  readonly blockingSite: string | null;
  /** Index among the run's six-event sequence of the GoBlock (the dataset's depth). */
  readonly depth: number;
  /** Events (of the six) in the run. */
  readonly runEvents: number;
  /** From the GoBlock to the run's last user record. */
  readonly blockedNs: number;
  /** Earlier blocks of this goroutine at the same site and reason that were woken, and the longest of them. */
  readonly earlierWakes: number;
  readonly longestEarlierBlockNs: number;
}

/** What one run says about each of its user goroutines. */
export interface RunGoroutineStates {
  /** Canonical ids of every user goroutine seen in the run. */
  readonly seen: ReadonlySet<string>;
  /** Goroutines whose final state is a leak-reason block never followed by GoUnblock. */
  readonly finalBlocks: ReadonlyMap<string, FinalBlock>;
  /** Goroutines that blocked at some site and were woken from their last block there: canonicalId → "reason|site" keys. */
  readonly wokenAt: ReadonlyMap<string, ReadonlySet<string>>;
  /** Goroutines at the trace end blocked in a timer-driven way (sleep, or a select they had woken from repeatedly) — excluded as ambiguous. */
  readonly ambiguous: ReadonlySet<string>;
  /** Every user goroutine alive at the end is blocked (a hang), in a run that did not end normally. */
  readonly allBlocked: boolean;
}

export type LeakKind = "leak" | "deadlock";

/** One step of the early-detection curve: from this depth on, `runsHolding` runs show the signature. */
export interface EarlyStep {
  readonly depth: number;
  readonly runsHolding: number;
}

export interface EarlyDetection {
  /** First depth at which the signature holds in every run where the goroutine ends blocked. */
  readonly firstDepthAllBlockedRuns: number;
  /** Same, as a fraction of the shortest such run's event count. */
  readonly firstDepthFraction: number;
  /** First depth at which it holds in every run the goroutine was seen in; null when some run never shows it. */
  readonly firstDepthAllRuns: number | null;
  /** Runs in which the goroutine, at some depth, showed the same block (reason and site) and was later woken: early false alarms. */
  readonly runsFalseAlarm: number;
  /** Step function: runs holding the signature from each depth on. */
  readonly curve: readonly EarlyStep[];
}

/** Which goroutine of which program, and where it was created and blocked. */
export interface BlockedGoroutine {
  readonly program: string;
  /** Canonical goroutine id. */
  readonly goroutine: string;
  /**
   * The test and subtests the goroutine belongs to, as `go test -run` names them
   * ("TestPool/go_without_wait/before_wait"); null in a main program.
   */
  readonly test: string | null;
  readonly entry: string | null;
  readonly isRoot: boolean;
  readonly reason: LeakReason;
  /** The `go` statement, "function file:line"; null for a root goroutine. */
  readonly creationSite: string | null;
  readonly blockingSite: string | null;
}

/** A goroutine that blocks forever: P(GoUnblock) = 0 observed after its last block. */
export interface LeakFinding extends BlockedGoroutine {
  readonly kind: LeakKind;
  /** The select case, the formal signature; the other reasons generalise it. */
  readonly formal: boolean;
  /** "file.go:LINE" (base name) of the `go` statement, as in the canonical id; null for a root. */
  readonly creationSiteKey: string | null;
  readonly runsSeen: number;
  readonly runsBlocked: number;
  /** runsBlocked / runsSeen: below 1 for a schedule-dependent leak. */
  readonly blockedFraction: number;
  /** Runs in which it blocked at the same site and reason but was woken (x of the bound). */
  readonly runsWoken: number;
  /** One-sided 95 % Clopper–Pearson upper bound on P(GoUnblock | blocked there), x = runsWoken of n = runsBlocked + runsWoken. */
  readonly pUnblockUpper: number;
  readonly early: EarlyDetection;
}

/**
 * A goroutine that was blocked when its run crashed (panic, fatal error): not a leak or
 * deadlock, since the crash, not the program's logic, ended its wait. Crashed runs are
 * left out of the findings' statistics and reported here instead. Its reason and blocking
 * site are the most frequent among the crashed runs where it was blocked.
 */
export interface BlockedAtCrash extends BlockedGoroutine {
  /** Crashed runs in which it was blocked at the crash. */
  readonly runsCrashed: number;
}

/** Options of the detector. */
export interface DetectOptions {
  /** Confidence of the upper bound (default 0.95). */
  readonly confidence?: number;
  /**
   * In a run that hung, a goroutine a timer had woken before from the same block counts
   * only if its final block began at least this many times its longest earlier block
   * there before the run's last user record (default 4): a timer-driven loop wakes again soon.
   */
  readonly timerMargin?: number;
  /** The test path of a canonical goroutine id (LeakFinding.test); default: none. */
  readonly testPathOf?: (canonicalId: string) => string | null;
}
