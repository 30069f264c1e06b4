// The cap on a program's samples (docs/dataset.md, "Bounded per program"): a program whose runs
// would give more samples than the cap keeps, in every run, the samples at the whole-run
// positions 0, s, 2s … — one stride s for all its runs, the smallest that keeps at most the cap —
// so its samples are spread evenly along every run (never a truncated start), a depth's samples
// still come from every run that reaches it, and an excerpt keeps the positions the whole run
// would. States are still computed from every event before each sample; leak analysis reads the
// events themselves and is unaffected.

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
 * A run of whole-run sample positions [start, start + count): a run stored whole gives one,
 * [0, its events); an excerpt one per window, from the events before the window. Under `split`
 * the positions are the split points' indices 0, 1, 2.
 */
export type PositionRange = readonly [start: number, count: number];

/**
 * The whole-run positions a run's samples may take under `abstraction`: its stored events'
 * indices in the whole run (given per excerpt window as [events before it, its stored events];
 * one window [0, eventCount] for a run stored whole), or the three split points. An upper
 * bound: goroutine and context give no sample at some of them (docs/dataset.md).
 */
export function samplePositions(
  abstraction: Abstraction,
  eventCount: number,
  windows?: readonly PositionRange[] | null,
): PositionRange[] {
  if (eventCount === 0) return [];
  if (abstraction === "split") return [[0, SPLIT_POINTS.length]];
  return windows === undefined || windows === null ? [[0, eventCount]] : windows.filter(([, n]) => n > 0);
}

/**
 * The whole-run positions of a run's samples (samplePositions) from what is stored of it: its
 * `events` in all and, for an excerpt, its windows, each window's stored events counted by
 * `eventsBetween` from its first record's seq to the next window's (undefined: to the run's end).
 */
export function storedPositions(
  abstraction: Abstraction,
  events: number,
  windows: readonly { readonly firstSeq: number; readonly eventsBefore: number }[] | undefined,
  eventsBetween: (fromSeq: number, toSeq: number | undefined) => number,
): PositionRange[] {
  if (windows === undefined || windows.length === 0) return samplePositions(abstraction, events);
  const ranges = windows.map((w, i): PositionRange => [
    w.eventsBefore,
    eventsBetween(w.firstSeq, windows[i + 1]?.firstSeq),
  ]);
  return samplePositions(abstraction, events, ranges);
}

/** The multiples of `stride` in [start, start + count): what a run range keeps under that stride. Pure. */
function multiplesIn([start, count]: PositionRange, stride: number): number {
  return Math.ceil((start + count) / stride) - Math.ceil(start / stride);
}

/**
 * The samples a program keeps under `stride`, its runs' position ranges given
 * (samplePositions): the positions that are multiples of the stride. Pure.
 *
 * @example keptSamples([[[0, 4]], [[0, 4]]], 3) // => 4 (positions 0 and 3 of both runs)
 */
export function keptSamples(runs: readonly (readonly PositionRange[])[], stride: number): number {
  let kept = 0;
  for (const ranges of runs) for (const range of ranges) kept += multiplesIn(range, stride);
  return kept;
}

/**
 * The distinct positions a program's runs cover, and how many of them `stride` keeps: its
 * states under an abstraction keyed by position (depth, split). Pure.
 */
export function keptPositions(
  runs: readonly (readonly PositionRange[])[],
  stride: number,
): { readonly positions: number; readonly kept: number } {
  const ranges = runs
    .flat()
    .filter(([, n]) => n > 0)
    .sort((a, b) => a[0] - b[0]);
  let positions = 0;
  let kept = 0;
  let end = 0; // positions below `end` are counted
  for (const [start, count] of ranges) {
    const from = Math.max(start, end);
    const to = start + count;
    if (to <= from) continue;
    positions += to - from;
    kept += multiplesIn([from, to - from], stride);
    end = to;
  }
  return { positions, kept };
}

/**
 * The stride s of a program whose runs give samples at `runs`' positions: 1 (every sample)
 * within the cap, else the smallest s found by bisection from ceil(samples / cap) that keeps at
 * most `cap` samples (keptSamples). When even the largest stride keeps more — more runs than
 * the cap, each keeping its position 0 — that stride: one sample per run. Pure.
 *
 * @example sampleStride([[[0, 4]], [[0, 4]]], 3) // => 4 (stride 3 would keep 4 samples)
 */
export function sampleStride(runs: readonly (readonly PositionRange[])[], cap: number): number {
  if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`the sample cap must be a positive integer, got ${cap}`);
  const samples = keptSamples(runs, 1);
  if (samples <= cap) return 1;
  // Beyond the last position a run keeps its position 0 at most: no larger stride keeps fewer.
  const last = Math.max(...runs.flat().map(([start, count]) => start + count));
  if (keptSamples(runs, last) > cap) return last;
  let low = Math.max(2, Math.ceil(samples / cap));
  let high = Math.max(low, last);
  // Invariant: keptSamples(runs, high) ≤ cap, so the stride found always fits. Runs stored whole
  // keep fewer samples as s grows, and the bisection finds the smallest such stride; a window
  // that starts mid-run need not, and the stride found there is a small one that fits.
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (keptSamples(runs, middle) <= cap) high = middle;
    else low = middle + 1;
  }
  return high;
}

/** `visit` for the samples at whole-run positions 0, s, 2s … only. */
export function everyNthSample(visit: SampleVisitor, stride: number): SampleVisitor {
  if (stride === 1) return visit;
  return (key, end, next, position) => {
    if (position % stride === 0) visit(key, end, next, position);
  };
}

/** A program above the sample cap: the samples its runs give, the stride it is sampled with, and what it keeps. */
export interface CappedProgram {
  readonly program: string;
  /** Samples its runs give without the cap. */
  readonly samples: number;
  readonly stride: number;
  /** Samples kept: at most the cap, unless the program has more runs than the cap. */
  readonly kept: number;
  /**
   * Under an abstraction keyed by position (depth, split): its states without the cap and kept
   * (the distinct positions its runs cover, and those the stride keeps); absent otherwise.
   */
  readonly states?: { readonly total: number; readonly kept: number };
}

/** The CappedProgram of a program whose runs give samples at `runs`' positions, or null when the cap does not bind. */
export function cappedProgram(
  program: string,
  abstraction: Abstraction,
  runs: readonly (readonly PositionRange[])[],
  cap: number,
): CappedProgram | null {
  const stride = sampleStride(runs, cap);
  if (stride === 1) return null;
  const states = abstraction === "depth" || abstraction === "split" ? keptPositions(runs, stride) : null;
  return {
    program,
    samples: keptSamples(runs, 1),
    stride,
    kept: keptSamples(runs, stride),
    ...(states === null ? {} : { states: { total: states.positions, kept: states.kept } }),
  };
}

/** The cap a command ran under and the programs it capped: what its output and JSON report. */
export interface SampleCapReport {
  readonly maxSamplesPerProgram: number;
  /** In program name order. */
  readonly capped: readonly CappedProgram[];
}

/** One report of the programs several sides capped (each program is on one side). */
export function sampleCapReport(
  maxSamplesPerProgram: number,
  ...sides: readonly (readonly CappedProgram[])[]
): SampleCapReport {
  const byName = new Map(sides.flat().map((c) => [c.program, c]));
  return { maxSamplesPerProgram, capped: [...byName.keys()].sort().map((name) => byName.get(name)!) };
}

/** The dropped samples and (for abstractions keyed by position) states of capped programs, summed. */
export function cappedTotals(capped: readonly CappedProgram[]): {
  readonly samples: number;
  readonly samplesDropped: number;
  readonly states: number | null;
  readonly statesDropped: number | null;
} {
  const sum = (f: (c: CappedProgram) => number) => capped.reduce((n, c) => n + f(c), 0);
  const keyed = capped.length > 0 && capped.every((c) => c.states !== undefined);
  return {
    samples: sum((c) => c.samples),
    samplesDropped: sum((c) => c.samples - c.kept),
    states: keyed ? sum((c) => c.states!.total) : null,
    statesDropped: keyed ? sum((c) => c.states!.total - c.states!.kept) : null,
  };
}

/**
 * "capped: N program(s) above C samples …, D of S samples dropped (…states…): name (S samples, 1
 * in s kept), …", or that no program is above the cap.
 */
export function cappedLine(report: SampleCapReport): string {
  if (report.capped.length === 0) return `sample cap ${report.maxSamplesPerProgram} per program: no program above it`;
  const totals = cappedTotals(report.capped);
  const shown = report.capped
    .slice(0, 5)
    .map((c) => `${c.program} (${c.samples} samples, 1 in ${c.stride} kept)`)
    .join(", ");
  const states = totals.states === null ? "" : `, ${totals.statesDropped} of their ${totals.states} states`;
  return (
    `capped: ${report.capped.length} program(s) above ${report.maxSamplesPerProgram} samples, each sampled evenly along its runs ` +
    `(${totals.samplesDropped} of their ${totals.samples} samples dropped${states}): ` +
    `${shown}${report.capped.length > 5 ? ", …" : ""}`
  );
}

/**
 * The `cap` object of a command's --json: the cap, how many programs it capped, the samples (and
 * for depth and split the states) it dropped in all, and each capped program.
 */
export function sampleCapJson(report: SampleCapReport): object {
  const totals = cappedTotals(report.capped);
  return {
    maxSamplesPerProgram: report.maxSamplesPerProgram,
    programsCapped: report.capped.length,
    samplesDropped: totals.samplesDropped,
    statesDropped: totals.statesDropped,
    capped: report.capped,
  };
}
