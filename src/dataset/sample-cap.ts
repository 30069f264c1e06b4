// The cap on a program's samples (docs/dataset.md, "Bounded per program"): a program whose runs
// would give more samples than the cap keeps every s-th sample of each run, s the same for all
// its runs, so its samples are spread evenly along every run (never a truncated start) and a
// depth's samples still come from every run. States are still computed from every event
// before each sample; leak analysis reads the events themselves and is unaffected.

import type { Abstraction } from "./types.js";
import type { SampleVisitor } from "./sample-stepper.js";
import { SPLIT_POINTS } from "./sample-stepper.js";

/**
 * Samples one program may put into the dataset of an abstraction, by default: three times the
 * bundled corpus's largest program (30 056 samples in 5 runs), so it stays whole, while a real
 * library's suite of 36 M events keeps 1 sample in 360 (docs/dataset.md, "Bounded per program").
 */
export const DEFAULT_MAX_SAMPLES_PER_PROGRAM = 100_000;

/** The samples a run of `eventCount` events gives under `abstraction`: one per event, or one per split point. */
export function samplesOfRun(abstraction: Abstraction, eventCount: number): number {
  if (eventCount === 0) return 0;
  return abstraction === "split" ? SPLIT_POINTS.length : eventCount;
}

/**
 * The stride s of a program whose runs give `samples` samples in all: 1 (every sample) within
 * the cap, else the smallest s with ceil(samples / s) ≤ cap. Pure.
 *
 * @example sampleStride(250_000, 100_000) // => 3
 */
export function sampleStride(samples: number, cap: number): number {
  if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`the sample cap must be a positive integer, got ${cap}`);
  return samples <= cap ? 1 : Math.ceil(samples / cap);
}

/** `visit` for the run's 0th, s-th, 2s-th … sample only (a new visitor per run: it counts the run's samples). */
export function everyNthSample(visit: SampleVisitor, stride: number): SampleVisitor {
  if (stride === 1) return visit;
  let ordinal = 0;
  return (key, end, next) => {
    if (ordinal++ % stride === 0) visit(key, end, next);
  };
}
