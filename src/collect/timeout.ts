// The deadline of one run: from the --timeout asked for and the program's manifest, and in
// a budgeted collect scaled for the slower race and perturb builds. Pure.

import type { Strategy } from "./strategy.js";

/**
 * A manifest's timeoutMs may only shorten the deadline: it cuts short a program known to
 * deadlock, and never makes a run outlive the --timeout the user asked for.
 */
export function runTimeoutMs(optionMs: number, manifestMs: number | undefined): number {
  return manifestMs === undefined ? optionMs : Math.min(optionMs, manifestMs);
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
  /** The deadline runTimeoutMs gives (--timeout, shortened by a manifest). */
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
