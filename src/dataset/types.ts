// Samples, states and empirical next-event distributions (docs/dataset.md).
// Invariant: a state's distribution keeps raw counts per event type; p̂ is derived.

import type { EventType, GoroutineInfo, GoroutineRecord } from "../core/index.js";

export const ABSTRACTIONS = ["split", "depth", "goroutine", "context"] as const;
export type Abstraction = (typeof ABSTRACTIONS)[number];

/** An excerpt as the steppers read it: the whole run's events, and where each window starts. */
export interface ExcerptShape {
  readonly events: number;
  readonly windows: readonly { readonly firstSeq: number; readonly eventsBefore: number }[];
}

/** How a run explored schedules (runs.strategy): an unperturbed build, a -race build, seeded perturbation. */
export const RUN_STRATEGIES = ["plain", "race", "perturb"] as const;
export type RunStrategy = (typeof RUN_STRATEGIES)[number];

/**
 * Which runs feed distributions, training and evaluation. Perturbed and race runs change the
 * scheduler's distribution being modelled, so the default is plain runs only.
 */
export type RunSelection = "plain" | "all" | readonly RunStrategy[];

/** Counts of observed next events, one per event type (zeros included). */
export type EventCounts = Readonly<Record<EventType, number>>;

/**
 * A prefix of one run's record stream without copying it: records[0 .. end) is the prefix,
 * records[end] (if any) is what happened next in that run. `records` holds every decoded
 * record of the run (non-event kinds included) in trace order.
 */
export interface Prefix {
  readonly program: string;
  readonly runId: number;
  readonly procs: number;
  readonly records: readonly GoroutineRecord[];
  readonly end: number;
  /** The run's user goroutines (canonical ids, entry functions), when known; used for rendering. */
  readonly goroutines?: readonly GoroutineInfo[];
}

/** One observation: in this run, after this prefix, this event happened next. */
export interface Sample {
  readonly stateId: string;
  readonly prefix: Prefix;
  readonly next: EventType;
}

/** A state of an abstraction with the empirical distribution of the next event. */
export interface State {
  /** Stable id, the same in SQLite, exports and replay files: sha256 of abstraction + program + key, hex, 16 chars. */
  readonly id: string;
  readonly abstraction: Abstraction;
  /** Program name; for pooled abstractions (context) the program of the representative prefix. */
  readonly program: string;
  /** Human-readable key within the abstraction, e.g. "split=50" or "depth=12". */
  readonly key: string;
  readonly counts: EventCounts;
  /** Number of distinct runs contributing samples. */
  readonly runs: number;
  /** The prefix a predictor is shown (one run's prefix, per the published protocol). */
  readonly representative: Prefix;
  /** Content hash of `representative` (see prefixHash): what prediction caches key on. */
  readonly prefixHash: string;
}

/** Every decoded record of one run, the input of the dataset stage. Records are in trace order. */
export interface RunRecords {
  readonly program: string;
  readonly runId: number;
  readonly procs: number;
  readonly records: readonly GoroutineRecord[];
  readonly goroutines?: readonly GoroutineInfo[];
  /** Set for a run stored as an excerpt (docs/schema.md, "Excerpts"): `records` are its windows. */
  readonly excerpt?: ExcerptShape | null;
}

/**
 * A sample without its prefix object: records[end] of run `runId` is `next`, and the state is
 * `stateId`. Cheap to hold by the million; rebuild a Prefix from the run's records when needed.
 */
export interface SampleRow {
  readonly stateId: string;
  readonly program: string;
  readonly runId: number;
  readonly end: number;
  readonly next: EventType;
}
