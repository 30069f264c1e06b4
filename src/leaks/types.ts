// Types of the leaks stage: the runs it reads, the per-run final states it derives, and
// the findings, early-detection curves and scores it reports (docs/leaks.md).

import type {
  Explanation,
  FindingKind,
  GoroutineJudgement,
  LeakReason,
  OutlivingReason,
  PreciseWait,
  RuleOptions,
  SourceWakers,
} from "../model/index.js";

export {
  LEAK_REASONS,
  isLeakReason,
  FINDING_KINDS,
  type LeakReason,
  type RunEnd,
  type RunStop,
  type RuntimeView,
  type LeakRun,
  type AnalysedRun,
  type ProgramRuns,
  type FinalBlock,
  type FinalWait,
  type OutlivingReason,
  type RunGoroutineStates,
  type FindingKind,
  type Verdict,
  type Owner,
  type EndState,
  type WakeTally,
} from "../model/index.js";

/** Where a goroutine ended: a leak-reason block, or a network wait or syscall (for outlived findings only). */
export type FinalReason = LeakReason | OutlivingReason;

/** Kinds of finding a gate counts by default: goroutines blocked forever. */
export type LeakKind = Extract<FindingKind, "leak" | "deadlock">;

/** One step of the early-detection curve: from this depth on, `runsHolding` runs show the signature. */
export interface EarlyStep {
  readonly depth: number;
  readonly runsHolding: number;
}

export interface EarlyDetection {
  /** First depth at which the signature holds in every run where the trace shows the goroutine end blocked; null when it shows it in none. */
  readonly firstDepthAllBlockedRuns: number | null;
  /** Same, as a fraction of the shortest such run's event count; null with it. */
  readonly firstDepthFraction: number | null;
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
  /** Its wait: a leak reason; network or syscall for a goroutine that outlived its test in such a wait. */
  readonly reason: FinalReason;
  /** The `go` statement, "function file:line"; null for a root goroutine. */
  readonly creationSite: string | null;
  readonly blockingSite: string | null;
}

/**
 * A goroutine the one leak rule judged (src/model/leak-rule.ts: kind, verdict, gating, why,
 * owner, wakers, wakesAtSite), with what the report adds: sites, run counts, the bound and
 * early detection. Only kinds leak and deadlock are "blocked forever".
 */
export interface LeakFinding extends BlockedGoroutine, Omit<GoroutineJudgement, "goroutine" | "runs"> {
  /** The select case, the formal signature; the other reasons generalise it. */
  readonly formal: boolean;
  /** "file.go:LINE" (base name) of the `go` statement, as in the canonical id; null for a root. */
  readonly creationSiteKey: string | null;
  readonly runsSeen: number;
  readonly runsBlocked: number;
  /** runsBlocked / runsSeen: below 1 for a schedule-dependent leak. */
  readonly blockedFraction: number;
  /** Runs in which it blocked at the same site and reason but was woken from its last block there. */
  readonly runsWoken: number;
  /** One-sided 95 % Clopper–Pearson upper bound on P(GoUnblock | blocked there), x = wakesAtSite of n = runsBlocked + wakesAtSite. */
  readonly pUnblockUpper: number;
  readonly early: EarlyDetection;
  /** What it waits on precisely (Mutex.Lock, WaitGroup.Wait, chan receive, …), from the stack at its block. */
  readonly wait: PreciseWait;
  /** Why it is stuck, from the run that says the most (src/model/explain.ts); null when no run left it blocked. */
  readonly explanation: Explanation | null;
  /** Fingerprint of the bug it belongs to (src/model/bugs.ts). */
  readonly bug: string;
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
  /** In a run cut by the deadline, the share of its traced time a block must have lasted to be judged (default 0.5). */
  readonly cutFraction?: number;
  /** The source's view of a blocking site: can a timer or a context end it (src/model/wait-sites.ts)? */
  readonly waitSourceAt?: RuleOptions["waitSourceAt"];
  /** The source's view of who can complete a channel wait (src/model/wait-sites.ts); default: none. */
  readonly sourceWakers?: SourceWakers;
  /** The test path of a canonical goroutine id (LeakFinding.test); default: none. */
  readonly testPathOf?: (canonicalId: string) => string | null;
}
