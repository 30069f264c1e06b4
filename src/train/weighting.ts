// How much each class, program and sample counts in training (pure): class totals and the
// --balance class weights, the per-program caps that keep one huge program from deciding the
// fit, early stopping or the calibration, and the class marginal the calibration mixes in.

import type { Sample } from "../dataset/index.js";
import { seededRandom, shuffleInPlace } from "../random.js";
import { EVENT_TYPES, RARE_EVENTS, type EventType } from "../core/index.js";
import type { TrainingMatrix } from "./fit.js";

const K = EVENT_TYPES.length;

/** Weight 1 for every event: rows that are scored, not rebalanced. */
export const UNIT_WEIGHTS: Readonly<Record<EventType, number>> = {
  GoCreate: 1,
  GoStart: 1,
  GoBlock: 1,
  GoUnblock: 1,
  GoSched: 1,
  GoEnd: 1,
};

/** How many of `samples` have each next event. */
export function classTotals(samples: readonly Sample[]): Record<EventType, number> {
  const totals = { GoCreate: 0, GoStart: 0, GoBlock: 0, GoUnblock: 0, GoSched: 0, GoEnd: 0 } as Record<
    EventType,
    number
  >;
  for (const s of samples) totals[s.next]++;
  return totals;
}

/** Class weights for --balance: (n_max / n_c)^τ for rare events, capped; 1 for the others and for unseen events. */
export function classWeights(
  totals: Readonly<Record<EventType, number>>,
  temper: number,
  cap: number,
): Record<EventType, number> {
  const max = Math.max(...EVENT_TYPES.map((e) => totals[e]));
  const weights = {} as Record<EventType, number>;
  for (const event of EVENT_TYPES) {
    const n = totals[event];
    weights[event] = RARE_EVENTS.includes(event) && n > 0 ? Math.min(cap, Math.pow(max / n, temper)) : 1;
  }
  return weights;
}

/** The training samples' class frequencies (EVENT_TYPES order), the prior of the calibration. */
export function classMarginal(totals: Readonly<Record<EventType, number>>): Float64Array {
  const n = EVENT_TYPES.reduce((a, e) => a + totals[e], 0);
  return Float64Array.from(EVENT_TYPES, (e) => (n > 0 ? totals[e] / n : 1 / K));
}

/**
 * At most `cap` samples per program (a seeded uniform choice, kept in original order), so
 * a program with a huge event stream neither dominates nor slows CE training.
 */
export function capSamplesPerProgram(
  samples: readonly Sample[],
  cap: number,
  seed: number,
): { samples: Sample[]; indices: number[] } {
  const byProgram = new Map<string, number[]>();
  samples.forEach((s, i) => {
    const list = byProgram.get(s.prefix.program);
    if (list === undefined) byProgram.set(s.prefix.program, [i]);
    else list.push(i);
  });
  const keep: number[] = [];
  const random = seededRandom(seed ^ 0xca9);
  for (const program of [...byProgram.keys()].sort()) {
    const indices = byProgram.get(program) ?? [];
    if (indices.length > cap) shuffleInPlace(indices, random);
    // A loop, not push(...spread): a program can have more samples than the call stack has slots.
    for (let j = 0; j < Math.min(cap, indices.length); j++) keep.push(indices[j]);
  }
  keep.sort((a, b) => a - b);
  return { samples: keep.map((i) => samples[i]), indices: keep };
}

/**
 * Per-program factors min(1, 4·median / n_p) on training weights: programs up to four times
 * the median size count fully; bigger ones are scaled down to that size.
 */
export function trainingProgramFactors(samples: readonly Sample[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const s of samples) sizes.set(s.prefix.program, (sizes.get(s.prefix.program) ?? 0) + 1);
  const sorted = [...sizes.values()].sort((a, b) => a - b);
  const median = sorted.length === 0 ? 1 : sorted[Math.floor((sorted.length - 1) / 2)];
  const factors = new Map<string, number>();
  for (const [program, n] of sizes) factors.set(program, Math.min(1, (4 * median) / n));
  return factors;
}

/** Multiplies each row's weight by its program's factor (`programs[r]` is row r's program). */
export function scaleByProgram(
  m: TrainingMatrix,
  programs: readonly string[],
  factors: ReadonlyMap<string, number>,
): void {
  for (let r = 0; r < m.rows; r++) m.weights[r] *= factors.get(programs[r]) ?? 1;
}

/** A program's family under the split's `familyOf`; a program without one is its own. */
export const familyOfProgram = (familyOf: Readonly<Record<string, string>> | undefined, program: string): string =>
  familyOf?.[program] ?? program;

/**
 * `values` (one per row; `programs[r]` is row r's program) scaled so that every family's total
 * is the mean family total. A family whose total is 0 keeps its values.
 */
export function familyEqualised(
  values: Float64Array,
  programs: readonly string[],
  familyOf: Readonly<Record<string, string>> | undefined,
): Float64Array {
  const families = programs.map((p) => familyOfProgram(familyOf, p));
  const totals = new Map<string, number>();
  families.forEach((f, r) => totals.set(f, (totals.get(f) ?? 0) + values[r]));
  const mean = [...totals.values()].reduce((a, b) => a + b, 0) / Math.max(1, totals.size);
  return Float64Array.from(values, (v, r) => {
    const total = totals.get(families[r])!;
    return total > 0 ? v * (mean / total) : v;
  });
}

/**
 * Caps each program's total count at 4 × the median program total (the rule training weights
 * use), so one program with a huge, easy event stream cannot decide early stopping and the
 * temperature alone, while small programs do not weigh more than their samples.
 */
export function capProgramCounts(m: TrainingMatrix, programs: readonly string[]): void {
  const totals = new Map<string, number>();
  for (let r = 0; r < m.rows; r++) totals.set(programs[r], (totals.get(programs[r]) ?? 0) + m.counts[r]);
  if (totals.size === 0) return;
  const sorted = [...totals.values()].sort((a, b) => a - b);
  const cap = 4 * sorted[Math.floor((sorted.length - 1) / 2)];
  for (let r = 0; r < m.rows; r++) m.counts[r] *= Math.min(1, cap / (totals.get(programs[r]) ?? cap));
}
