// Decoded goroutine records: the records of the six scheduler event types and the
// non-event kinds kept beside them, lock operations, and a run's user goroutines.
// Invariant: `goroutine` is always the subject of the transition (the resource of the Go
// trace's StateTransition); `actor` is the goroutine whose execution caused it (the creator
// for GoCreate, the waker for GoUnblock), or null when the runtime itself acted (e.g. a
// timer firing with no goroutine on the P).

import type { RecordKind } from "./events.js";

/** One decoded record of a user goroutine, as stored in the `events` table. */
export interface GoroutineRecord {
  /** Index of the record within its run (all kinds), starting at 0. */
  readonly seq: number;
  /** Trace timestamp in nanoseconds since the start of the trace. */
  readonly timeNs: number;
  readonly kind: RecordKind;
  /** Runtime goroutine id of the subject, unique within the run. */
  readonly goroutine: number;
  /** Runtime goroutine id of the actor, or null. */
  readonly actor: number | null;
  /**
   * GoBlock: the block reason verbatim ("chan receive", "select", "sync", "preempted", "" …).
   * GoSched: "runtime.Gosched" (yield) or "preempted". Initial: the state name. Else "".
   */
  readonly reason: string;
  /** GoCreate: the `go` statement (function file:line); GoBlock and GoSched: the top user frame; else null. */
  readonly site: string | null;
  /**
   * GoBlock: the blocked goroutine's stack string, `API;FUNC FILE:LINE;…` (docs/events.md):
   * the standard-library function the top user frame called, then up to 12 user frames,
   * innermost first, the first one equal to `site`; null when the trace gave no stack.
   * Undefined for every other kind, and for a GoBlock stored before stacks were recorded.
   */
  readonly stack?: string | null;
}

/**
 * A lock operation the lock instrumentation of `collect --budget` logged (runtime/trace user
 * log, category "schedlab.lock"; docs/events.md). Not a record: it has no seq of its own
 * and never changes RECORD_KINDS; readers deliver it just before the record numbered `seq`.
 */
export interface LockOp {
  /** Position in the run: the seq of the record that follows it (ops come before record `seq`). */
  readonly seq: number;
  readonly timeNs: number;
  readonly goroutine: number; // runtime gid of the goroutine that logged it
  readonly phase: "want" | "got" | "drop";
  readonly mode: "w" | "r";
  readonly lock: string; // hex id, unique within one run only
  readonly site: string | null; // top user frame of the log's stack ("function file:line")
  readonly stack: string | null; // same format as GoroutineRecord.stack, API part empty ("" before the first ";")
}

/** A user goroutine of one run. */
export interface GoroutineInfo {
  readonly goroutine: number;
  /** Canonical identity, stable across runs: see docs/identity.md. */
  readonly canonicalId: string;
  readonly parent: number | null;
  /** Entry function, e.g. "main.worker" or "main.main.func1". */
  readonly entry: string | null;
  /** The `go` statement that created it, "function file:line". */
  readonly creationSite: string | null;
  readonly isRoot: boolean;
}

/**
 * When a run's goroutine leak profile was taken (runtime_goroutines.taken): after the run's
 * tests or main returned and the goroutines settled (end), when the run agent proved a hang
 * (hang), or just before the run's deadline (deadline).
 */
export type LeakProfileTaken = "end" | "hang" | "deadline";

/**
 * A goroutine as the runtime's goroutine leak profile (runtime/pprof "goroutineleak",
 * debug=2) shows it: its runtime id (the trace's goroutine id), the runtime's wait reason
 * ("chan receive", "sync.Mutex.Lock", "IO wait", "select (no cases)", …), and whether the
 * garbage collector proved it leaked — blocked on a concurrency primitive that no runnable
 * goroutine and no global can reach, so nothing can ever wake it.
 */
export interface RuntimeGoroutine {
  readonly gid: number;
  readonly wait: string;
  readonly leaked: boolean;
  /** The innermost frame outside the runtime and the standard library, "function file:line"; null when none. */
  readonly top: string | null;
}
