// Figures that weigh programs (pure): a pooled accuracy, ECE or NLL counts every sample once, so
// a few long programs can rule it (on real bug kernels four programs held 92 % of the depth
// samples). The family mean counts every family once and the program mean every program once;
// both come with a cluster-bootstrap interval that resamples families, as every other interval
// does. Inputs are per-program sufficient statistics, so memory follows the programs, not the
// samples.

import {
  clusterBootstrapMeanDifferenceOfSums,
  DEFAULT_CALIBRATION_BINS,
  expectedCalibrationErrorOfBins,
  reliabilityBinsOfSums,
  type BootstrapInterval,
  type BootstrapOptions,
  type ReliabilityBin,
} from "../metrics/index.js";
import { calibrationBin } from "../metrics/index.js";

/** Per-program sums of one predictor's samples: counts, tie credit, NLL and top-label calibration bins. */
export interface ProgramSums {
  readonly bins: number;
  readonly samples: Float64Array;
  readonly credit: Float64Array;
  readonly nll: Float64Array;
  /** Row p·bins + b: program p's samples whose top confidence falls in bin b. */
  readonly binCount: Float64Array;
  readonly binConfidence: Float64Array;
  readonly binHits: Float64Array;
}

export function emptyProgramSums(programs: number, bins: number = DEFAULT_CALIBRATION_BINS): ProgramSums {
  return {
    bins,
    samples: new Float64Array(programs),
    credit: new Float64Array(programs),
    nll: new Float64Array(programs),
    binCount: new Float64Array(programs * bins),
    binConfidence: new Float64Array(programs * bins),
    binHits: new Float64Array(programs * bins),
  };
}

/** Adds one sample of program `p`: its tie credit, −ln q(observed) and top-label confidence. */
export function addProgramSample(sums: ProgramSums, p: number, credit: number, nll: number, confidence: number): void {
  sums.samples[p]! += 1;
  sums.credit[p]! += credit;
  sums.nll[p]! += nll;
  const cell = p * sums.bins + calibrationBin(confidence, sums.bins);
  sums.binCount[cell]! += 1;
  sums.binConfidence[cell]! += confidence;
  sums.binHits[cell]! += credit;
}

/** One figure's family mean and program mean, each with its family-bootstrap 95 % interval. */
export interface UnitMeans {
  readonly familyMean: BootstrapInterval;
  readonly programMean: BootstrapInterval;
}

/** Accuracy, ECE and NLL with every family, and every program, counted once. */
export interface WeightedFigures {
  /** What "family" is here: families, or programs when there were too few families to resample (chooseClusters). */
  readonly unit: "family" | "program";
  readonly families: number;
  readonly programs: number;
  readonly accuracy: UnitMeans;
  readonly ece: UnitMeans;
  readonly nll: UnitMeans;
}

interface UnitValues {
  readonly accuracy: number;
  readonly ece: number;
  readonly nll: number;
}

/** The reliability bins of the samples of `members` (program indices), pooled. */
function pooledReliability(sums: ProgramSums, members: readonly number[]): ReliabilityBin[] {
  const { bins } = sums;
  const count = new Float64Array(bins);
  const confidence = new Float64Array(bins);
  const hits = new Float64Array(bins);
  for (const p of members) {
    for (let b = 0; b < bins; b++) {
      count[b]! += sums.binCount[p * bins + b]!;
      confidence[b]! += sums.binConfidence[p * bins + b]!;
      hits[b]! += sums.binHits[p * bins + b]!;
    }
  }
  return reliabilityBinsOfSums(count, confidence, hits);
}

const total = (values: Float64Array, members: readonly number[]): number => members.reduce((t, p) => t + values[p]!, 0);

/** Accuracy, ECE and NLL of the samples of `members` (program indices), pooled. */
function valuesOf(sums: ProgramSums, members: readonly number[]): UnitValues {
  const n = total(sums.samples, members);
  return {
    accuracy: total(sums.credit, members) / n,
    ece: expectedCalibrationErrorOfBins(pooledReliability(sums, members), n),
    nll: total(sums.nll, members) / n,
  };
}

/** The programs with samples of each family, in order of family number. */
function familyMembers(sums: ProgramSums, familyOfProgram: ArrayLike<number>): [number, number[]][] {
  const members = new Map<number, number[]>();
  for (let p = 0; p < sums.samples.length; p++) {
    if (sums.samples[p]! === 0) continue;
    const f = familyOfProgram[p]!;
    const list = members.get(f);
    if (list === undefined) members.set(f, [p]);
    else list.push(p);
  }
  // In the order of their numbers: the bootstrap draws clusters by position.
  return [...members.entries()].sort((a, b) => a[0] - b[0]);
}

/**
 * The family and program means of accuracy, ECE and NLL. `familyOfProgram[p]` numbers the
 * family of program p (0 … families − 1); programs without samples are left out. Both means
 * resample families, with the same draws as the pooled intervals for the same seed and family
 * count: the program mean's interval draws families and averages the programs they hold.
 *
 * @example a family of one long program and one of one short program: the pooled accuracy
 * follows the long one, the family and program means weigh both alike.
 */
export function weightedFigures(
  sums: ProgramSums,
  familyOfProgram: ArrayLike<number>,
  unit: WeightedFigures["unit"],
  bootstrap: BootstrapOptions = {},
): WeightedFigures {
  const families = familyMembers(sums, familyOfProgram).map(([, ps]) => ps);
  const programValues = families.map((ps) => ps.map((p) => valuesOf(sums, [p])));
  const familyValues = families.map((ps) => valuesOf(sums, ps));
  const ones = new Float64Array(families.length).fill(1);
  const zeros = new Float64Array(families.length);
  const programsPerFamily = Float64Array.from(families, (ps) => ps.length);
  const means = (key: keyof UnitValues): UnitMeans => ({
    familyMean: clusterBootstrapMeanDifferenceOfSums(
      ones,
      Float64Array.from(familyValues, (v) => v[key]),
      zeros,
      bootstrap,
    ),
    programMean: clusterBootstrapMeanDifferenceOfSums(
      programsPerFamily,
      Float64Array.from(programValues, (vs) => vs.reduce((s, v) => s + v[key], 0)),
      zeros,
      bootstrap,
    ),
  });
  return {
    unit,
    families: families.length,
    programs: programValues.reduce((s, vs) => s + vs.length, 0),
    accuracy: means("accuracy"),
    ece: means("ece"),
    nll: means("nll"),
  };
}

/** One family's own figures: what the per-family pictures draw. */
export interface FamilyFigure {
  /** The family's number (familyOfProgram's). */
  readonly family: number;
  readonly programs: number;
  readonly samples: number;
  /** Accuracy over its samples, with a bootstrap interval that resamples its programs (one program: no spread). */
  readonly accuracy: BootstrapInterval;
  readonly ece: number;
  readonly reliability: ReliabilityBin[];
}

/**
 * Each family's accuracy (with an interval over its programs), ECE and reliability bins, in
 * order of family number; families without samples are left out.
 */
export function familyFigures(
  sums: ProgramSums,
  familyOfProgram: ArrayLike<number>,
  bootstrap: BootstrapOptions = {},
): FamilyFigure[] {
  return familyMembers(sums, familyOfProgram).map(([family, ps]) => {
    const samples = total(sums.samples, ps);
    const reliability = pooledReliability(sums, ps);
    return {
      family,
      programs: ps.length,
      samples,
      accuracy: clusterBootstrapMeanDifferenceOfSums(
        Float64Array.from(ps, (p) => sums.samples[p]!),
        Float64Array.from(ps, (p) => sums.credit[p]!),
        new Float64Array(ps.length),
        bootstrap,
      ),
      ece: expectedCalibrationErrorOfBins(reliability, samples),
      reliability,
    };
  });
}

/** How much of a pooled figure its largest programs hold. */
export interface SampleConcentration {
  readonly programs: number;
  readonly samples: number;
  readonly largestProgram: string | null;
  /** The largest program's share of the samples. */
  readonly largestShare: number;
  /** The four largest programs' share. */
  readonly largestFourShare: number;
  /** The fewest programs (largest first) that hold half of the samples. */
  readonly programsForHalf: number;
}

/**
 * The share of the samples held by the largest programs.
 *
 * @example sampleConcentration(["a", "b", "c"], [90, 5, 5]) // => largestShare 0.9, programsForHalf 1
 */
export function sampleConcentration(names: readonly string[], samples: ArrayLike<number>): SampleConcentration {
  const order = names.map((_, p) => p).filter((p) => samples[p]! > 0);
  order.sort((a, b) => samples[b]! - samples[a]! || (names[a]! < names[b]! ? -1 : 1));
  const total = order.reduce((s, p) => s + samples[p]!, 0);
  let held = 0;
  let forHalf = 0;
  for (const p of order) {
    if (held * 2 >= total) break;
    held += samples[p]!;
    forHalf++;
  }
  const share = (k: number): number =>
    total === 0 ? NaN : order.slice(0, k).reduce((s, p) => s + samples[p]!, 0) / total;
  return {
    programs: order.length,
    samples: total,
    largestProgram: order.length === 0 ? null : names[order[0]!]!,
    largestShare: share(1),
    largestFourShare: share(4),
    programsForHalf: forHalf,
  };
}
