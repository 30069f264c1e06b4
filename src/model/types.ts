// The goroutine model's vocabulary: how a run ended, the state each user goroutine is in
// when its trace stops, the waits it was woken from, and the kinds of leak finding.
// Shared by collect's per-run check and the leaks stage (docs/leaks.md, "One rule").

import type { GoroutineInfo, LeakProfileTaken, RuntimeGoroutine } from "../core/index.js";
import type { RunLocks } from "./locks.js";
import type { PreciseWait } from "./waits.js";

/** Block reasons after which only another goroutine (or a timer) can wake the blocked one. */
export const LEAK_REASONS = ["chan send", "chan receive", "select", "sync", "sync.(*Cond).Wait", "forever"] as const;
export type LeakReason = (typeof LEAK_REASONS)[number];

export function isLeakReason(reason: string): reason is LeakReason {
  return (LEAK_REASONS as readonly string[]).includes(reason);
}

/**
 * Waits the outside world ends (a connection arriving, a syscall returning): never blocked
 * forever, but a goroutine its test left in one outlived it — a server never shut down.
 */
export const OUTLIVING_REASONS = ["network", "syscall"] as const;
export type OutlivingReason = (typeof OUTLIVING_REASONS)[number];

export function isOutlivingReason(reason: string): reason is OutlivingReason {
  return (OUTLIVING_REASONS as readonly string[]).includes(reason);
}

/** Why a run was stopped before it ended by itself (collect's runs.stop_reason). */
export type RunStop = "deadline" | "budget" | "hang";

/**
 * The runtime's view of a run's goroutines: its goroutine leak profile, taken at the run's
 * end, at a hang the run agent proved, or just before the deadline (runtime_goroutines).
 * Keyed by runtime goroutine id, the trace's.
 */
export interface RuntimeView {
  /**
   * leak-profile: the runtime's goroutine leak profile, whose leaked marks are the garbage
   * collector's proof; dump: a goroutine dump (a deadline's traceback, the harness's dump),
   * which shows each goroutine's wait but proves nothing leaked (every `leaked` is false).
   */
  readonly source: "leak-profile" | "dump";
  readonly taken: LeakProfileTaken;
  readonly goroutines: ReadonlyMap<number, RuntimeGoroutine>;
}

/** How a run ended, as collect recorded it (runs.outcome). */
export type RunEnd = "ok" | "exit-error" | "panic" | "timeout" | "killed";

/** Outcomes of runs the deadline or schedlab's kill stopped: the trace was cut, not finished. */
export function runWasCut(outcome: RunEnd): boolean {
  return outcome === "timeout" || outcome === "killed";
}

/** The run ended by itself (its program returned or exited, or its tests ran to the end), not by the runtime's deadlock report. */
export function runFinished(run: LeakRun): boolean {
  return (run.outcome === "ok" || run.outcome === "exit-error") && !run.runtimeDeadlock;
}

/**
 * One run of a program: how it ended and its user goroutines. Its records are not held
 * here: they are streamed through runStateFold, which keeps per-goroutine state.
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
  /** Why collect stopped the run before it ended by itself, or null (absent: not recorded). */
  readonly stop?: RunStop | null;
  /** The runtime's goroutine leak profile of the run, or null (absent: none was taken). */
  readonly runtime?: RuntimeView | null;
  /**
   * The process's wall time (runs.wall_ms), when known. A run the deadline cut has no user
   * record at the cut itself (everyone may be blocked long before it), so its blocks are aged
   * up to this time: the trace starts as the process does, within milliseconds.
   */
  readonly wallMs?: number | null;
  readonly goroutines: readonly GoroutineInfo[];
}

/**
 * Where a user goroutine stood when its run's trace stopped. `blocked`: in a leak-reason
 * wait; `sleeping`: time.Sleep; `waiting`: any other wait (network, GC, a wait already
 * under way when tracing began); `not-started`: created but never ran.
 */
export const END_STATES = [
  "ended",
  "blocked",
  "sleeping",
  "waiting",
  "runnable",
  "running",
  "syscall",
  "not-started",
] as const;
export type EndState = (typeof END_STATES)[number];

/** A goroutine that can still act by itself: its waits end without help, or it is not waiting. */
export function isLive(state: EndState): boolean {
  return state !== "ended" && state !== "blocked";
}

/** The waker of a block that no user goroutine caused: a timer (no goroutine acted) or runtime/library code. */
export const TIMER_WAKER = "(timer)";
export const NON_USER_WAKER = "(non-user)";

/** Wake-ups of one goroutine from one wait (reason and site) within one run. */
export interface WakeTally {
  readonly count: number;
  /** Of those, wakes with no goroutine as actor: timers firing from the scheduler. */
  readonly timer: number;
  /** The longest of the woken blocks, in ns. */
  readonly longestNs: number;
  /** Who woke it: canonical ids of user goroutines, TIMER_WAKER or NON_USER_WAKER (at most a few). */
  readonly wakers: readonly string[];
}

/** A goroutine's last real block in one run, if it was never woken from it. */
export interface FinalBlock {
  readonly canonicalId: string;
  readonly reason: LeakReason;
  /** What it waits on precisely: the library call on its stack (Mutex.Lock, WaitGroup.Wait, …) or the channel operation. */
  readonly wait: PreciseWait;
  /** The stack at the block ("call;function file:line;…", docs/events.md), null when the trace had none. */
  readonly stack: string | null;
  /** Top user frame at the block, "function file:line". */
  readonly blockingSite: string | null;
  /** Index among the run's six-event sequence of the GoBlock (the dataset's depth). */
  readonly depth: number;
  /** Events (of the six) in the run. */
  readonly runEvents: number;
  /** From the GoBlock to the run's last user record (in a run the deadline cut: to the cut, from the wall time). */
  readonly blockedNs: number;
  /** Wake-ups of this goroutine from the same wait earlier in the run, and the longest of those blocks. */
  readonly earlierWakes: number;
  readonly longestEarlierBlockNs: number;
}

/**
 * A goroutine's last wait in one run when it is one the outside world ends (a network wait,
 * a syscall) and it was still in it when the trace stopped: FinalBlock's fields, with its
 * reason (a syscall has no site or stack in the trace).
 */
export interface FinalWait extends Omit<FinalBlock, "reason"> {
  readonly reason: OutlivingReason;
}

/** What one run says about each of its user goroutines. */
export interface RunGoroutineStates {
  /** Canonical ids of every user goroutine seen in the run. */
  readonly seen: ReadonlySet<string>;
  /** The state of every seen goroutine when the trace stopped. */
  readonly ends: ReadonlyMap<string, EndState>;
  /** Goroutines whose final state is a leak-reason block never followed by GoUnblock. */
  readonly finalBlocks: ReadonlyMap<string, FinalBlock>;
  /** Goroutines whose final state is a network wait or a syscall (live: the outside world can end it). */
  readonly finalWaits: ReadonlyMap<string, FinalWait>;
  /** Wake-ups per goroutine and wait ("reason|site" from blockKey). */
  readonly wakes: ReadonlyMap<string, ReadonlyMap<string, WakeTally>>;
  /** The trace was cut by the deadline or a kill (the run did not finish). */
  readonly cut: boolean;
  /** Every user goroutine alive at the end is blocked (a hang), in a run that did not end normally. */
  readonly allBlocked: boolean;
  /** Nanoseconds from the run's first user record to its last (to the cut, in a cut run with a known wall time). */
  readonly tracedNs: number;
  /** Its lock operations' conclusions (holders, waits, lock-order edges); empty without lock recording. */
  readonly locks: RunLocks;
}

/** A run with what its records say about each goroutine at its end: the rule's input. */
export interface AnalysedRun {
  readonly run: LeakRun;
  readonly states: RunGoroutineStates;
}

/** The analysed runs of one program. */
export interface ProgramRuns {
  readonly program: string;
  readonly runs: readonly AnalysedRun[];
}

/**
 * The kinds of finding (docs/leaks.md):
 * - `leak`: blocked forever while the program or test went on or finished;
 * - `deadlock`: blocked forever in a run that hung with every user goroutine blocked;
 * - `outlived`: alive (a timer, a ticker or a context can still wake it) after the test or
 *   program that created it ended — what goleak reports;
 * - `background`: predates the test or belongs to init, TestMain or package state;
 * - `inconclusive`: left blocked while a goroutine that woke the same wait was still live,
 *   or only in runs cut by the deadline before it had been blocked long.
 */
export const FINDING_KINDS = ["leak", "deadlock", "outlived", "background", "inconclusive"] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/**
 * How sure a finding is: proven (a proof — the runtime's leak profile, a hang of every
 * goroutine of the process, a cycle of waits, a wait nothing can ever end), likely (the trace
 * and the source say so; the text says which proof is missing), inconclusive.
 */
export type Verdict = "proven" | "likely" | "inconclusive";

/**
 * What the trace says of a goroutine's wait, as evidence (docs/leaks.md, "Evidence"):
 * hung (the run hung with every user goroutine blocked), cycle (its goroutines wait for one
 * another in a cycle), never-woken (never woken from this
 * wait in any run, or a wait nothing can end), wakers-gone (the goroutines that woke it
 * elsewhere had ended or were blocked), waker-live (one that could wake it was live),
 * timer-woken (a timer woke it there), cut (the deadline cut the run while it waited),
 * outside-wait (a network wait or syscall), lifetime (main parked for the program's
 * lifetime), owner (its owner decided: background).
 */
export const TRACE_EVIDENCE = [
  "hung",
  "cycle",
  "never-woken",
  "wakers-gone",
  "waker-live",
  "timer-woken",
  "cut",
  "outside-wait",
  "lifetime",
  "owner",
] as const;
export type TraceEvidence = (typeof TRACE_EVIDENCE)[number];

/** What the runtime's leak profile says of a goroutine (null: no profile showed it). */
export const RUNTIME_EVIDENCE = ["leaked", "reachable", "hang"] as const;
export type RuntimeEvidence = (typeof RUNTIME_EVIDENCE)[number];

/** What the source says can end a wait besides another goroutine (null: nothing, or sources not read). */
export const SOURCE_EVIDENCE = ["timer", "context", "signal"] as const;
export type SourceEvidence = (typeof SOURCE_EVIDENCE)[number];

/**
 * The evidence behind a verdict, by kind (docs/leaks.md, "Evidence"): the runtime's — leaked
 * (the garbage collector proved it blocked on something no running goroutine or global can
 * reach), reachable (blocked, but what it waits on was still reachable), hang (the run agent
 * stopped the process because goroutine 1 could never go on); the trace's; the source's.
 */
export interface Evidence {
  readonly runtime: RuntimeEvidence | null;
  readonly trace: TraceEvidence;
  readonly source: SourceEvidence | null;
}

/** Who a goroutine belongs to, read from the root of its canonical id. */
export type Owner =
  | { readonly kind: "test"; readonly root: string }
  | { readonly kind: "main" }
  | { readonly kind: "background"; readonly why: "pre-trace" | "TestMain" | "orphan" };
