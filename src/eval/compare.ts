// Paired comparison of two predictors scored on the same samples: a cluster bootstrap
// interval on the accuracy difference and the cluster sign-flip test as its p-value, with
// McNemar's test kept beside it, labelled as assuming independent samples, and the programs
// on which either leads the other by more than a margin.

import {
  type BootstrapOptions,
  clusterBootstrapMeanDifference,
  clusterSignFlipTest,
  mcnemar,
} from "../metrics/index.js";
import { EvaluationInputError } from "./errors.js";
import type { PredictorComparison, ProgramAccuracy, ProgramLead, ProgramLeads, SampleScores } from "./types.js";

/** A program counts as led by a predictor when its accuracy there is more than this above the other's (2 points). */
export const PROGRAM_LEAD_MARGIN = 0.02;
/** How many of each predictor's largest program leads a comparison lists. */
export const PROGRAM_LEADS_LISTED = 3;

/**
 * Compares A with B on the samples both were scored on (they must be the same samples
 * in the same order, as `evaluate` produces them). The bootstrap and the test resample
 * clusters (families, or programs), not samples: see clusterBootstrapMeanDifference for why.
 */
export function compare(
  a: SampleScores,
  b: SampleScores,
  options: BootstrapOptions = {},
): PredictorComparison & { readonly programLeads: ProgramLeads } {
  const sameSamples =
    a.credit.length === b.credit.length &&
    a.abstraction === b.abstraction &&
    a.holdout === b.holdout &&
    // evaluate gives every predictor the same cluster array, so the element check is the exception.
    (a.clusters === b.clusters || a.clusters.every((p, i) => p === b.clusters[i]));
  if (!sameSamples) {
    throw new EvaluationInputError(
      `cannot compare ${a.name} with ${b.name}: they were scored on different samples`,
      "Evaluate both predictors in one `schedlab eval` call (same --abstraction and --holdout) to compare them.",
    );
  }
  const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length);
  return {
    a: a.name,
    b: b.name,
    abstraction: a.abstraction,
    holdout: a.holdout,
    accuracyA: mean(a.credit),
    accuracyB: mean(b.credit),
    difference: clusterBootstrapMeanDifference(a.clusters, a.credit, b.credit, options),
    clusterTest: clusterSignFlipTest(a.clusters, a.credit, b.credit, {
      resamples: options.resamples,
      seed: options.seed,
    }),
    clusterUnit: a.clusterUnit,
    mcnemarIndependent: mcnemar(a.credit, b.credit),
    programLeads: programLeads(a.programs, a.credit, b.credit),
  };
}

/** A program's summed tie credit over its samples: what its accuracy is read off. */
export interface ProgramCredit {
  readonly program: string;
  readonly samples: number;
  /** Σ tie credit of the program's samples, in sample order. */
  readonly credit: number;
}

/** Each program's samples and summed credit, programs in order of first appearance. */
function programCredits(programs: readonly string[], credit: readonly number[]): ProgramCredit[] {
  const sums = new Map<string, { program: string; samples: number; credit: number }>();
  programs.forEach((program, i) => {
    let s = sums.get(program);
    if (s === undefined) sums.set(program, (s = { program, samples: 0, credit: 0 }));
    s.samples++;
    s.credit += credit[i]!;
  });
  return [...sums.values()];
}

/** Each program's accuracy (the mean tie credit of its samples), in order of the program's name. */
export function programAccuracy(programs: readonly string[], credit: readonly number[]): ProgramAccuracy[] {
  return programAccuracyOfSums(programCredits(programs, credit));
}

/**
 * programAccuracy from each program's summed credit (its sufficient statistics), in order of
 * the program's name.
 *
 * @example programAccuracyOfSums([{ program: "b", samples: 2, credit: 1 }, { program: "a", samples: 1, credit: 1 }])
 * // => [{ program: "a", samples: 1, accuracy: 1 }, { program: "b", samples: 2, accuracy: 0.5 }]
 */
export function programAccuracyOfSums(sums: readonly ProgramCredit[]): ProgramAccuracy[] {
  return [...sums]
    .sort((x, y) => (x.program < y.program ? -1 : x.program > y.program ? 1 : 0))
    .map((s) => ({ program: s.program, samples: s.samples, accuracy: s.credit / s.samples }));
}

/**
 * Each program's accuracy under A and under B, and the programs where one is more than
 * PROGRAM_LEAD_MARGIN ahead. Pooled and per-family accuracy weigh a long program like many
 * short ones, so a predictor can trail on several programs and still lead overall; this says where.
 */
export function programLeads(
  programs: readonly string[],
  creditA: readonly number[],
  creditB: readonly number[],
): ProgramLeads {
  return programLeadsOfSums(programCredits(programs, creditA), programCredits(programs, creditB));
}

/**
 * programLeads from each program's summed credit under A and under B (the same programs in
 * both lists, in any order): what cross-validation accumulates without a credit per sample.
 */
export function programLeadsOfSums(sumsA: readonly ProgramCredit[], sumsB: readonly ProgramCredit[]): ProgramLeads {
  const b = programAccuracyOfSums(sumsB);
  const leads: ProgramLead[] = programAccuracyOfSums(sumsA).map((a, i) => ({
    program: a.program,
    samples: a.samples,
    accuracyA: a.accuracy,
    accuracyB: b[i]!.accuracy,
  }));
  const byLead = (sign: number): ProgramLead[] =>
    leads
      .filter((l) => sign * (l.accuracyA - l.accuracyB) > PROGRAM_LEAD_MARGIN + 1e-12) // a lead of exactly the margin is none
      .sort(
        (x, y) => sign * (y.accuracyA - y.accuracyB - (x.accuracyA - x.accuracyB)) || (x.program < y.program ? -1 : 1),
      );
  const aAhead = byLead(1);
  const bAhead = byLead(-1);
  return {
    margin: PROGRAM_LEAD_MARGIN,
    programs: leads.length,
    aAhead: aAhead.length,
    bAhead: bAhead.length,
    largestA: aAhead.slice(0, PROGRAM_LEADS_LISTED),
    largestB: bAhead.slice(0, PROGRAM_LEADS_LISTED),
  };
}
