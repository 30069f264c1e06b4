// The exploration order of collect --budget: which configuration (strategy, GOMAXPROCS,
// -test.count) each next run of a program uses. Pure. docs/collect.md gives the
// measurements behind the order.

import { configKey, type Strategy } from "./strategy.js";
import type { ProgramKind, RunConfig } from "./types.js";

/** -test.count of a budgeted test run when none is given: more chances per process start. */
export const EXPLORE_TEST_COUNT = 20;

export interface ExploreOptions {
  readonly kind: ProgramKind;
  /** The machine's CPU count. */
  readonly cores: number;
  /** GOMAXPROCS values to explore; null: 1, 2, the CPU count and twice it. */
  readonly procs: readonly number[] | null;
  /** -test.count for test programs; null: EXPLORE_TEST_COUNT. */
  readonly testCount: number | null;
}

/** The GOMAXPROCS values a budget explores by default, in order: the CPU count first. */
export function exploredProcs(cores: number): number[] {
  return [...new Set([cores, 1, 2, 2 * cores])];
}

/**
 * One cycle of configurations; run k of a program uses entry k mod length. The cycle opens
 * with the plain configuration at the CPU count (the runs an ordinary collect makes, so
 * they also serve distributions), then interleaves perturbation, -race and the other
 * GOMAXPROCS values so that every strategy gets runs early whatever the budget. A test
 * program's runs after the first repeat the tests (-test.count) for more chances per
 * process start.
 */
export function explorationCycle(options: ExploreOptions): RunConfig[] {
  const procs = options.procs !== null && options.procs.length > 0 ? [...options.procs] : exploredProcs(options.cores);
  const count = options.kind === "test" ? (options.testCount ?? EXPLORE_TEST_COUNT) : null;
  const config = (strategy: Strategy, p: number, testCount: number | null): RunConfig => ({ key: configKey(strategy, p, testCount), strategy, procs: p, testCount });
  const first = procs[0]!;
  const cycle: RunConfig[] = [config("plain", first, null)];
  // Per GOMAXPROCS value: perturbation, then -race, then plain repetition.
  for (const p of procs) {
    cycle.push(config("perturb", p, count));
    cycle.push(config("race", p, count));
    if (p !== first || count !== null) cycle.push(config("plain", p, count));
  }
  // Perturbation is the strategy that finds lock-order bugs; it gets a second turn per cycle.
  for (const p of procs) cycle.push(config("perturb", p, count));
  return uniqueInOrder(cycle);
}

function uniqueInOrder(configs: RunConfig[]): RunConfig[] {
  // A key may repeat on purpose (a second perturb turn); only consecutive repeats collapse.
  return configs.filter((c, i) => i === 0 || configs[i - 1]!.key !== c.key);
}
