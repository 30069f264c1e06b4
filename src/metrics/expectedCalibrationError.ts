// Binned top-label expected calibration error (ECE).

import { DEFAULT_CALIBRATION_BINS, reliabilityBins, type ReliabilityBin } from "./reliabilityBins.js";

/**
 * Σ_bins (n_b / N) · |accuracy_b − confidence_b| over equal-width bins of the
 * top-label probability, each sample weighted once (so states observed in more
 * runs weigh more). 0 is perfectly calibrated; 1 is the worst.
 *
 * @param probabilities predicted distribution per sample
 * @param observed observed class index per sample
 * @param bins number of bins (default 15, docs/metrics.md)
 * @returns ECE in [0, 1]; NaN for no samples
 * @example expectedCalibrationError([[0.9, 0.1], [0.6, 0.4]], [0, 1], 2) // => |0.5 − 0.75| = 0.25
 */
export function expectedCalibrationError(
  probabilities: readonly (readonly number[])[],
  observed: readonly number[],
  bins = DEFAULT_CALIBRATION_BINS,
): number {
  if (probabilities.length === 0) return NaN;
  return expectedCalibrationErrorOfBins(reliabilityBins(probabilities, observed, bins), probabilities.length);
}

/**
 * The ECE of reliability bins already computed over `samples` samples (no pass over the samples).
 *
 * @example expectedCalibrationErrorOfBins(reliabilityBins([[0.9, 0.1], [0.6, 0.4]], [0, 1], 2), 2) // => 0.25
 */
export function expectedCalibrationErrorOfBins(bins: readonly ReliabilityBin[], samples: number): number {
  if (samples === 0) return NaN;
  let total = 0;
  for (const bin of bins) {
    if (bin.count > 0) total += bin.count * Math.abs(bin.accuracy - bin.confidence);
  }
  return total / samples;
}
