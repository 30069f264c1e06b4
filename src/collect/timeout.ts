// The deadline of one run: the --timeout asked for, or, without one, a deadline derived from
// the program's first plain run; shortened by the program's manifest; and in a budgeted
// collect scaled for the slower race and perturb builds. Pure.

import type { Strategy } from "./strategy.js";

/**
 * A manifest's timeoutMs may only shorten the deadline: it cuts short a program known to
 * deadlock, and never makes a run outlive the --timeout the user asked for.
 */
export function runTimeoutMs(optionMs: number, manifestMs: number | undefined): number {
  return manifestMs === undefined ? optionMs : Math.min(optionMs, manifestMs);
}

/** The deadline of a run without --timeout until the program has an ok plain run to measure by. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The deadline derived from a program's plain run when --timeout is not given (docs/collect.md,
 * "Deadlines"): `factor` × the run's wall time, kept between `floorMs` and `ceilingMs`. The
 * factor leaves room for other schedules, GOMAXPROCS values and a loaded machine; the floor
 * keeps a fast program's deadline clear of process start and trace flush noise; the ceiling
 * keeps one slow first run from making every hung run of the program cost minutes.
 */
export const DERIVED_TIMEOUT = { factor: 5, floorMs: 2_000, ceilingMs: 60_000 } as const;

export interface ConfiguredTimeoutInput {
  /** --timeout, when given; null derives the deadline. */
  readonly givenMs: number | null;
  /** The program manifest's timeoutMs, if any. */
  readonly manifestMs: number | undefined;
  /**
   * The longest ok plain run of the program before this run started, per -test.count
   * iteration (wall ms divided by its count); null before any (the first run).
   */
  readonly plainOkMsPerIteration: number | null;
  /** The run's -test.count (null: one iteration). */
  readonly testCount: number | null;
  /**
   * In a budgeted collect, what is left of the program's budget: a derived deadline above
   * DEFAULT_TIMEOUT_MS is granted only as far as it goes. Absent in a plain collect.
   */
  readonly remainingBudgetMs?: number;
}

/**
 * The deadline a run is configured with, before a budget scales it for its strategy: the
 * given --timeout; else, once the program has an ok plain run, DERIVED_TIMEOUT's multiple of
 * it (per -test.count iteration × the run's count) between floor and ceiling; else
 * DEFAULT_TIMEOUT_MS. A manifest may shorten it (runTimeoutMs). Test binaries get it as
 * -test.timeout, main programs through the harness; it is the process deadline either way.
 *
 *   configuredTimeoutMs({ givenMs: null, manifestMs: undefined, plainOkMsPerIteration: 300, testCount: null }) → 2000 (5 × 300 = 1500, floor)
 *   configuredTimeoutMs({ givenMs: null, manifestMs: undefined, plainOkMsPerIteration: 3000, testCount: 2 }) → 30000
 *   configuredTimeoutMs({ givenMs: 7000, manifestMs: undefined, plainOkMsPerIteration: 300, testCount: null }) → 7000
 */
export function configuredTimeoutMs(input: ConfiguredTimeoutInput): number {
  return runTimeoutMs(input.givenMs ?? derivedTimeoutMs(input), input.manifestMs);
}

function derivedTimeoutMs(input: ConfiguredTimeoutInput): number {
  if (input.plainOkMsPerIteration === null) return DEFAULT_TIMEOUT_MS;
  const { factor, floorMs, ceilingMs } = DERIVED_TIMEOUT;
  const derived = Math.min(
    ceilingMs,
    Math.max(floorMs, Math.ceil(factor * input.plainOkMsPerIteration * (input.testCount ?? 1))),
  );
  if (input.remainingBudgetMs === undefined || derived <= DEFAULT_TIMEOUT_MS) return derived;
  return Math.max(DEFAULT_TIMEOUT_MS, Math.min(derived, Math.floor(input.remainingBudgetMs)));
}

/** The longest ok run per -test.count iteration among `runs` (wall ms / count), or null when none ended ok. */
export function longestOkMsPerIteration(
  runs: readonly { readonly outcome: string; readonly wallMs: number | null; readonly testCount: number | null }[],
): number | null {
  let longest: number | null = null;
  for (const run of runs)
    if (run.outcome === "ok" && run.wallMs !== null)
      longest = Math.max(longest ?? 0, run.wallMs / (run.testCount ?? 1));
  return longest;
}

/**
 * How many times its plain run a run of each strategy may take. The race detector's
 * documented cost is 2–20× execution time (https://go.dev/doc/articles/race_detector), so
 * 10 covers typical code without letting a hung race run eat a budget; perturbation adds a
 * Gosched or a 1–20 µs sleep at some synchronisation points (acting on 1 visit in 16 after
 * 1000 visits), far less, so 4. A plain run is its own measure (1).
 */
export const TIMEOUT_FACTORS: Readonly<Record<Strategy, number>> = { plain: 1, perturb: 4, race: 10 };

export interface ScaledTimeoutInput {
  readonly strategy: Strategy;
  /** The deadline configuredTimeoutMs gives (--timeout or derived, shortened by a manifest). */
  readonly configuredMs: number;
  /** The run's -test.count (null: one iteration). */
  readonly testCount: number | null;
  /**
   * The longest ok plain run of the program so far, per -test.count iteration (wall ms
   * divided by its count), or null before any.
   */
  readonly plainOkMsPerIteration: number | null;
  /** What is left of the program's budget. */
  readonly remainingBudgetMs: number;
}

/**
 * The deadline of a budgeted run. Plain runs keep the configured deadline. A race or
 * perturb run gets max(configured, factor × the longest ok plain run × its -test.count),
 * so a test that is slow but fine in plain runs is not cut and taken for a hang; the part
 * above the configured deadline is granted only as far as the remaining budget goes (a run
 * cut there is still a valid run, a timeout, checked like any other).
 *
 *   scaledTimeoutMs({ strategy: "race", configuredMs: 2000, testCount: null, plainOkMsPerIteration: 500, remainingBudgetMs: 60_000 }) → 5000
 */
export function scaledTimeoutMs(input: ScaledTimeoutInput): number {
  const { strategy, configuredMs, plainOkMsPerIteration } = input;
  if (strategy === "plain" || plainOkMsPerIteration === null) return configuredMs;
  const scaled = Math.ceil(TIMEOUT_FACTORS[strategy] * plainOkMsPerIteration * (input.testCount ?? 1));
  return Math.max(configuredMs, Math.min(scaled, Math.floor(input.remainingBudgetMs)));
}
