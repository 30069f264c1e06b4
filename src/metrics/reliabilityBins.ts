// Reliability-diagram data: top-label confidence against accuracy, in equal-width bins.

import { tieCredit } from "./tieCredit.js";

/** One equal-width confidence bin [lower, upper); the last bin includes 1. */
export interface ReliabilityBin {
  readonly lower: number;
  readonly upper: number;
  /** Samples whose top-label confidence falls in the bin. */
  readonly count: number;
  /** Mean top-label probability of those samples; NaN when count is 0. */
  readonly confidence: number;
  /** Mean tie credit of those samples (the share whose observed label is the top label); NaN when count is 0. */
  readonly accuracy: number;
}

/** The number of bins docs/metrics.md fixes for ECE and the reliability diagram. */
export const DEFAULT_CALIBRATION_BINS = 15;

/**
 * The bin of a top-label confidence: floor(confidence · bins), with 1 (and anything
 * above, from rounding) in the last bin and anything below 0 in the first.
 *
 * @example calibrationBin(0.5, 15) // => 7
 * @example calibrationBin(1, 15) // => 14
 */
export function calibrationBin(confidence: number, bins: number): number {
  return Math.min(bins - 1, Math.max(0, Math.floor(confidence * bins)));
}

/**
 * Bins samples by the probability of their top label. Bin i covers
 * [i/bins, (i+1)/bins); a confidence of exactly 1 goes in the last bin.
 * A sample whose top is a tie of m labels is right by 1/m when the observed label is one of
 * them (tieCredit), so the uniform predictor has confidence 1/6 and accuracy 1/6.
 *
 * @param probabilities predicted distribution per sample
 * @param observed observed class index per sample
 * @param bins number of equal-width bins (default 15)
 * @example reliabilityBins([[0.9, 0.1], [0.6, 0.4]], [0, 1], 2)
 * // => [{lower: 0, upper: 0.5, count: 0, …}, {lower: 0.5, upper: 1, count: 2, confidence: 0.75, accuracy: 0.5}]
 */
export function reliabilityBins(
  probabilities: readonly (readonly number[])[],
  observed: readonly number[],
  bins = DEFAULT_CALIBRATION_BINS,
): ReliabilityBin[] {
  if (probabilities.length !== observed.length) throw new RangeError("reliabilityBins: arrays differ in length");
  if (!(Number.isInteger(bins) && bins > 0)) throw new RangeError("reliabilityBins: bins must be a positive integer");
  const count = new Array<number>(bins).fill(0);
  const confidenceSum = new Array<number>(bins).fill(0);
  const hits = new Array<number>(bins).fill(0);
  for (let i = 0; i < probabilities.length; i++) {
    const q = probabilities[i]!;
    const confidence = Math.max(...q);
    const bin = calibrationBin(confidence, bins);
    count[bin]! += 1;
    confidenceSum[bin]! += confidence;
    hits[bin]! += tieCredit(q, observed[i]!);
  }
  return reliabilityBinsOfSums(count, confidenceSum, hits);
}

/**
 * The bins from their sums: per bin the sample count, the sum of top-label probabilities and
 * the sum of tie credits (what reliabilityBins accumulates in one pass over the samples).
 *
 * @example reliabilityBinsOfSums([0, 2], [0, 1.5], [0, 1])[1] // => {lower: 0.5, upper: 1, count: 2, confidence: 0.75, accuracy: 0.5}
 */
export function reliabilityBinsOfSums(
  count: ArrayLike<number>,
  confidenceSum: ArrayLike<number>,
  hits: ArrayLike<number>,
): ReliabilityBin[] {
  const bins = count.length;
  return Array.from(count, (n, b) => ({
    lower: b / bins,
    upper: (b + 1) / bins,
    count: n,
    confidence: n === 0 ? NaN : confidenceSum[b]! / n,
    accuracy: n === 0 ? NaN : hits[b]! / n,
  }));
}
