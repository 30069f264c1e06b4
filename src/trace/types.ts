// Types of the trace stage: decode options and results, the goroutine filter and the
// store modes. The event vocabulary and the records themselves live in src/core (the
// goroutine model below this stage needs them too); import them from there.

import type { GoroutineInfo, ProgramKind } from "../core/index.js";

/**
 * Which goroutine is the root: `main` (goroutine 1, running main.main), `test` (each
 * top-level TestXxx goroutine), or `auto` (decided from goroutine 1's first stack).
 */
export type RootMode = ProgramKind | "auto";

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
