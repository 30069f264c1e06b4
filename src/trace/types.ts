// Decoded goroutine records: the six scheduler event types and the non-event records
// kept beside them. Invariant: `goroutine` is always the subject of the transition
// (the resource of the Go trace's StateTransition); `actor` is the goroutine whose
// execution caused it (the creator for GoCreate, the waker for GoUnblock), or null
// when the runtime itself acted (e.g. a timer firing with no goroutine on the P).

/** The six event types every predictor is scored on, in a fixed order used for probability vectors. */
export const EVENT_TYPES = ["GoCreate", "GoStart", "GoBlock", "GoUnblock", "GoSched", "GoEnd"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Records decoded from a trace that are not one of the six events:
 * - SyscallEnter: Running → Syscall
 * - SyscallExit: Syscall → Running
 * - SyscallUnblock: Syscall → Runnable (the P was taken while in the syscall)
 * - Initial: the goroutine's status when first seen (Undetermined → X), not a transition
 */
export const NON_EVENT_KINDS = ["SyscallEnter", "SyscallExit", "SyscallUnblock", "Initial"] as const;
export type NonEventKind = (typeof NON_EVENT_KINDS)[number];

export type RecordKind = EventType | NonEventKind;

export function isEventType(kind: string): kind is EventType {
  return (EVENT_TYPES as readonly string[]).includes(kind);
}

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

/** Record kinds in the order the Go helper numbers them (its recordKind; test/gohelper/record-kinds.test.ts checks both agree; docs/events.md). */
export const RECORD_KINDS: readonly RecordKind[] = [...EVENT_TYPES, ...NON_EVENT_KINDS];

/**
 * Which goroutine is the root: `main` (goroutine 1, running main.main), `test` (each
 * top-level TestXxx goroutine), or `auto` (decided from goroutine 1's first stack).
 */
export type RootMode = "main" | "test" | "auto";

/**
 * The rule that separates user goroutines from the runtime's (docs/identity.md). A
 * pattern is an exact entry function or a prefix ending in `*`; `keep` wins over `drop`.
 */
export interface GoroutineFilter {
  readonly drop: readonly string[];
  readonly keep: readonly string[];
}

/** How a decode ended: every generation read, some lost at the end, or not a trace. */
export type DecodeStatus = "ok" | "truncated" | "error";

/** A user goroutine as the decoder reports it, before canonical ids are assigned. */
export interface DecodedGoroutine {
  readonly goroutine: number;
  readonly parent: number | null;
  readonly root: "none" | "program" | "test";
  /** Existed before tracing started (first seen as an Initial record). */
  readonly preTrace: boolean;
  /** Among siblings created by the same parent at the same site with the same entry. */
  readonly ordinal: number;
  /** Entry function as created, with the harness's renamed main mapped back to main.main. */
  readonly entry: string;
  /** For a standard-library wrapper entry (testing.tRunner, WaitGroup.Go): the user function it runs, if seen. */
  readonly runs: string | null;
  /** "function file:line" of the go statement (top user frame of the creator's stack). */
  readonly creationSite: string | null;
  /** "file:line" of the go statement, file as its base name. */
  readonly siteKey: string | null;
  /**
   * For a goroutine the testing driver's goroutine started while running TestMain or an
   * ExampleXxx function: that function's name ("TestMain", "ExampleCache"), the root it
   * hangs from; `parent` is then null. Absent or null otherwise.
   */
  readonly namedRoot?: string | null;
}

/** The end of a decode: its status and the run's user goroutines with canonical ids. */
export interface DecodeSummary {
  readonly status: DecodeStatus;
  /** Why the trace is truncated or unreadable; "" when ok. */
  readonly message: string;
  /** Complete generations decoded. */
  readonly generations: number;
  readonly recordCount: number;
  readonly goroutines: readonly GoroutineInfo[];
}

/**
 * What ingest keeps of a run (runs.store, `--store`): `events`, every record and lock
 * operation (what every stage reads); `summary`, only the run's goroutines and the end state
 * runStateFold concludes from its records (what `leaks` and `collect --replay` read).
 */
export const STORE_MODES = ["events", "summary"] as const;
export type StoreMode = (typeof STORE_MODES)[number];
