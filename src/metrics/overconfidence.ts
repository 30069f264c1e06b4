// Signed top-label calibration gap: how much more sure a predictor says it is than it is.

import type { ReliabilityBin } from "./reliabilityBins.js";

/**
 * Σ_bins n_b·(confidence_b − accuracy_b) / N: the mean top-label probability minus the mean tie
 * credit of the top label, from the reliability bins of N samples. Positive: over-confident;
 * negative: under-confident; its absolute value never exceeds the ECE of the same bins (where every
 * bin leans the same way the two are equal). Says which way ECE errs, which ECE alone cannot.
 *
 * @param bins reliability bins (reliabilityBins)
 * @returns the gap in [−1, 1]; NaN for no samples
 * @example overconfidenceOfBins(reliabilityBins([[0.9, 0.1], [0.6, 0.4]], [0, 1], 2)) // => 0.75 − 0.5 = 0.25
 */
export function overconfidenceOfBins(bins: readonly ReliabilityBin[]): number {
  let samples = 0;
  let total = 0;
  for (const bin of bins) {
    if (bin.count === 0) continue;
    samples += bin.count;
    total += bin.count * (bin.confidence - bin.accuracy);
  }
  return samples === 0 ? NaN : total / samples;
}
