// The exploration order of collect --budget: which configuration (strategy, GOMAXPROCS,
// -test.count) each next run of a program uses. Pure. docs/collect.md gives the
// measurements behind the order.

import type { ProgramKind } from "../corpus/index.js";
import { configKey, type Strategy } from "./strategy.js";
import type { RunConfig } from "./types.js";

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
 * One cycle of configurations; run k of a program uses entry k mod length. Measured with
 * bench/explore.mjs (docs/collect.md): single runs are cheaper per finding than
 * -test.count repetition (a repeated run of a stuck test pays its internal timeout every
 * iteration), perturbation is the only strategy that exposes tight lock-order bugs and
 * -race the only one that sees data races, and under perturbation the seed matters far
 * more than GOMAXPROCS. So the cycle opens with the plain configuration at the CPU count
 * (an ordinary collect's, whose runs also serve distributions), then alternates
 * perturbation (a fresh seed each time) with -race and the other GOMAXPROCS values, and
 * ends with the repeated (-test.count) forms of perturbation, -race and plain runs.
 */
export function explorationCycle(options: ExploreOptions): RunConfig[] {
  const procs = options.procs !== null && options.procs.length > 0 ? [...options.procs] : exploredProcs(options.cores);
  const count = options.kind === "test" ? (options.testCount ?? EXPLORE_TEST_COUNT) : null;
  const config = (strategy: Strategy, p: number, testCount: number | null): RunConfig => ({
    key: configKey(strategy, p, testCount),
    strategy,
    procs: p,
    testCount,
  });
  const [first, ...others] = procs as [number, ...number[]];
  const cycle: RunConfig[] = [
    config("plain", first, null),
    config("perturb", first, null),
    config("race", first, null),
  ];
  for (const p of others) cycle.push(config("perturb", p, null), config("plain", p, null), config("race", p, null));
  if (count !== null)
    cycle.push(config("perturb", first, count), config("race", first, count), config("plain", first, count));
  return cycle;
}
