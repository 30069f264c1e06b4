// MR4, per-bin calibration alignment of teacher and student, from per-program bin
// tallies so the program bootstrap re-bins nothing: a resample just sums tallies.

import { quantile } from "simple-statistics";
import { calibrationBin, DEFAULT_RESAMPLES, tieCredit } from "../metrics/index.js";
import { seededRandom } from "../random.js";
import type { AlignmentBin, FidelityOptions, FidelityThresholds, Mr4Result, RelationResult } from "./types.js";

/** Per bin: samples placed there, how many of them were right, and the sum of their confidences. */
interface BinTally {
  readonly count: number[];
  readonly hits: number[];
  readonly confidence: number[];
}

/** One program's tallies for both predictors. */
export interface ProgramTally {
  readonly program: string;
  readonly teacher: BinTally;
  readonly student: BinTally;
  readonly samples: number;
}

export interface CalibrationRow {
  readonly program: string;
  readonly observed: number;
  readonly teacher: readonly number[];
  readonly student: readonly number[];
}

const emptyTally = (bins: number): BinTally => ({
  count: new Array<number>(bins).fill(0),
  hits: new Array<number>(bins).fill(0),
  confidence: new Array<number>(bins).fill(0),
});

/** Same binning and tie credit as eval's reliabilityBins: bin i is [i/bins, (i+1)/bins), 1 goes in the last. */
function place(tally: BinTally, q: readonly number[], observed: number, bins: number): void {
  const c = Math.max(...q);
  const b = calibrationBin(c, bins);
  tally.count[b]! += 1;
  tally.confidence[b]! += c;
  tally.hits[b]! += tieCredit(q, observed);
}

/** Groups samples by program and bins both predictors' top-label confidences. */
export function calibrationTallies(rows: readonly CalibrationRow[], bins: number): ProgramTally[] {
  const byProgram = new Map<string, { teacher: BinTally; student: BinTally; samples: number }>();
  for (const row of rows) {
    let t = byProgram.get(row.program);
    if (t === undefined) {
      t = { teacher: emptyTally(bins), student: emptyTally(bins), samples: 0 };
      byProgram.set(row.program, t);
    }
    place(t.teacher, row.teacher, row.observed, bins);
    place(t.student, row.student, row.observed, bins);
    t.samples += 1;
  }
  return [...byProgram].map(([program, t]) => ({ program, ...t }));
}

function sumTallies(parts: readonly BinTally[], bins: number): BinTally {
  const total = emptyTally(bins);
  for (const p of parts) {
    for (let b = 0; b < bins; b++) {
      total.count[b]! += p.count[b]!;
      total.hits[b]! += p.hits[b]!;
      total.confidence[b]! += p.confidence[b]!;
    }
  }
  return total;
}

function ece(t: BinTally): number {
  const n = t.count.reduce((s, x) => s + x, 0);
  if (n === 0) return NaN;
  return t.count.reduce((s, c, b) => s + (c === 0 ? 0 : Math.abs(t.hits[b]! - t.confidence[b]!)), 0) / n;
}

interface Mr4Statistics {
  readonly bins: AlignmentBin[];
  readonly weighted: number;
  readonly violatedSamples: number;
  readonly comparedSamples: number;
  readonly binShare: number;
  readonly compared: number;
  readonly eceGap: number;
}

function statistics(teacher: BinTally, student: BinTally, thresholds: FidelityThresholds): Mr4Statistics {
  const bins: AlignmentBin[] = [];
  let comparedSamples = 0;
  let violatedSamples = 0;
  let compared = 0;
  let violatedBins = 0;
  for (let b = 0; b < thresholds.bins; b++) {
    const nt = teacher.count[b]!;
    const ns = student.count[b]!;
    const at = nt === 0 ? NaN : teacher.hits[b]! / nt;
    const as = ns === 0 ? NaN : student.hits[b]! / ns;
    const both = nt > 0 && ns > 0;
    const gap = both ? Math.abs(at - as) : NaN;
    const violated = both && gap > thresholds.mr4Threshold;
    if (both) {
      compared += 1;
      comparedSamples += nt + ns;
      if (violated) {
        violatedBins += 1;
        violatedSamples += nt + ns;
      }
    }
    bins.push({
      lower: b / thresholds.bins,
      upper: (b + 1) / thresholds.bins,
      teacherCount: nt,
      studentCount: ns,
      teacherAccuracy: at,
      studentAccuracy: as,
      gap,
      violated,
    });
  }
  return {
    bins,
    weighted: comparedSamples === 0 ? NaN : violatedSamples / comparedSamples,
    violatedSamples,
    comparedSamples,
    binShare: compared === 0 ? NaN : violatedBins / compared,
    compared,
    eceGap: Math.abs(ece(teacher) - ece(student)),
  };
}

function percentile(
  values: readonly number[],
  estimate: number,
  options: FidelityOptions,
  programs: number,
): RelationResult["ci"] {
  const confidence = options.ciLevel ?? 0.95;
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { lower: NaN, upper: NaN, confidence, resamples: values.length, programs };
  if (programs === 1) return { lower: estimate, upper: estimate, confidence, resamples: values.length, programs };
  const alpha = (1 - confidence) / 2;
  const [lower, upper] = quantile([...finite], [alpha, 1 - alpha]);
  return { lower: lower!, upper: upper!, confidence, resamples: values.length, programs };
}

/**
 * MR4 with program-bootstrap intervals for the sample-weighted violation rate and for
 * |ECE_T − ECE_S|. A resample draws as many programs as there are, with replacement,
 * and recomputes both statistics from the summed tallies; resamples where no bin is
 * populated by both predictors give no rate and are left out of its interval.
 */
export function mr4FromTallies(
  tallies: readonly ProgramTally[],
  thresholds: FidelityThresholds,
  options: FidelityOptions,
): Mr4Result {
  const bins = thresholds.bins;
  const full = statistics(
    sumTallies(
      tallies.map((t) => t.teacher),
      bins,
    ),
    sumTallies(
      tallies.map((t) => t.student),
      bins,
    ),
    thresholds,
  );
  const resamples = tallies.length === 0 ? 0 : (options.resamples ?? DEFAULT_RESAMPLES);
  const random = seededRandom(options.seed ?? 1);
  const rates: number[] = [];
  const gaps: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const pick = tallies.map(() => tallies[Math.floor(random() * tallies.length)]!);
    const s = statistics(
      sumTallies(
        pick.map((t) => t.teacher),
        bins,
      ),
      sumTallies(
        pick.map((t) => t.student),
        bins,
      ),
      thresholds,
    );
    rates.push(s.weighted);
    gaps.push(s.eceGap);
  }
  return {
    violationRate: full.weighted,
    ci: percentile(rates, full.weighted, options, tallies.length),
    units: full.comparedSamples,
    violations: full.violatedSamples,
    excluded: tallies.reduce((n, t) => n + 2 * t.samples, 0) - full.comparedSamples,
    binViolationShare: full.binShare,
    binsCompared: full.compared,
    eceGap: full.eceGap,
    eceGapCi: percentile(gaps, full.eceGap, options, tallies.length),
    bins: full.bins,
  };
}
