// Program-cluster bootstrap interval of the binned top-label ECE, through per-cluster bin sums.

import {
  clusterBootstrapDraws,
  clusterIndex,
  type BootstrapInterval,
  type BootstrapOptions,
  type ClusterStatistic,
} from "./clusterBootstrap.js";
import { calibrationBin, DEFAULT_CALIBRATION_BINS } from "./reliabilityBins.js";
import { tieCredit } from "./tieCredit.js";

export interface CalibrationIntervalOptions extends BootstrapOptions {
  /** Number of equal-width confidence bins (default 15, as for the ECE). */
  readonly bins?: number;
}

/**
 * Percentile interval of expectedCalibrationError when whole clusters (programs) are
 * resampled. ECE is a ratio over bins, not a mean over samples: a resample changes each
 * bin's count, confidence and accuracy together, so the per-sample values cannot simply
 * be averaged. Since n_b·|acc_b − conf_b| = |hits_b − confidenceSum_b|, a resample
 * needs only each bin's (count, confidence sum, hit count) summed over the drawn
 * clusters: these are precomputed per cluster, so one resample costs
 * O(clusters × bins) instead of O(samples). The result equals the direct ECE of the
 * resampled samples (up to rounding), and uses the same draws as every other cluster
 * bootstrap with the same seed and cluster count (e.g. the accuracy interval).
 *
 * @param groups cluster key per sample (the program)
 * @param probabilities predicted distribution per sample
 * @param observed observed class index per sample
 * @example expectedCalibrationErrorInterval(["p", "q"], [[0.9, 0.1], [0.6, 0.4]], [0, 1], { bins: 2 }).estimate // => 0.25
 */
export function expectedCalibrationErrorInterval(
  groups: readonly string[],
  probabilities: readonly (readonly number[])[],
  observed: readonly number[],
  options: CalibrationIntervalOptions = {},
): BootstrapInterval {
  if (groups.length !== probabilities.length || probabilities.length !== observed.length) {
    throw new RangeError("expectedCalibrationErrorInterval: arrays differ in length");
  }
  const bins = options.bins ?? DEFAULT_CALIBRATION_BINS;
  if (!(Number.isInteger(bins) && bins > 0))
    throw new RangeError("expectedCalibrationErrorInterval: bins must be a positive integer");
  const { clusterOf, sizes } = clusterIndex(groups);
  // Row g·bins + b: cluster g's samples in bin b.
  const count = new Float64Array(sizes.length * bins);
  const confidenceSum = new Float64Array(sizes.length * bins);
  const hits = new Float64Array(sizes.length * bins);
  for (let i = 0; i < clusterOf.length; i++) {
    const q = probabilities[i]!;
    const confidence = Math.max(...q);
    const cell = clusterOf[i]! * bins + calibrationBin(confidence, bins);
    count[cell]! += 1;
    confidenceSum[cell]! += confidence;
    hits[cell]! += tieCredit(q, observed[i]!);
  }
  return expectedCalibrationErrorIntervalOfCells(sizes, { count, confidenceSum, hits }, { ...options, bins });
}

/** Per-cluster, per-bin sums of the calibration bins: cell g·bins + b holds cluster g's samples in bin b. */
export interface CalibrationCells {
  /** Samples in the cell. */
  readonly count: Float64Array;
  /** Σ top-label probability of those samples. */
  readonly confidenceSum: Float64Array;
  /** Σ tie credit of those samples. */
  readonly hits: Float64Array;
}

/**
 * The cluster bootstrap interval of the ECE from per-cluster bin sums (its sufficient
 * statistics; see expectedCalibrationErrorInterval, which is this after one pass over the
 * samples). A resample costs O(clusters × bins).
 *
 * @param sizes samples per cluster
 * @param cells per-cluster bin sums, sizes.length × bins cells
 * @example expectedCalibrationErrorIntervalOfCells([1, 1], {
 *   count: Float64Array.of(0, 1, 0, 1),
 *   confidenceSum: Float64Array.of(0, 0.9, 0, 0.6),
 *   hits: Float64Array.of(0, 1, 0, 0) }, { bins: 2 }).estimate // => 0.25
 */
export function expectedCalibrationErrorIntervalOfCells(
  sizes: readonly number[],
  cells: CalibrationCells,
  options: CalibrationIntervalOptions = {},
): BootstrapInterval {
  const bins = options.bins ?? DEFAULT_CALIBRATION_BINS;
  const { count, confidenceSum, hits } = cells;
  if (count.length !== sizes.length * bins || confidenceSum.length !== count.length || hits.length !== count.length) {
    throw new RangeError("expectedCalibrationErrorIntervalOfCells: cells must be clusters × bins");
  }
  const binCount = new Float64Array(bins);
  const binConfidence = new Float64Array(bins);
  const binHits = new Float64Array(bins);
  const ece: ClusterStatistic = (drawn) => {
    binCount.fill(0);
    binConfidence.fill(0);
    binHits.fill(0);
    let samples = 0;
    for (const g of drawn) {
      samples += sizes[g]!;
      for (let b = 0, cell = g * bins; b < bins; b++, cell++) {
        binCount[b]! += count[cell]!;
        binConfidence[b]! += confidenceSum[cell]!;
        binHits[b]! += hits[cell]!;
      }
    }
    // The same per-bin form as expectedCalibrationError: n_b · |accuracy_b − confidence_b|.
    let total = 0;
    for (let b = 0; b < bins; b++) {
      const n = binCount[b]!;
      if (n > 0) total += n * Math.abs(binHits[b]! / n - binConfidence[b]! / n);
    }
    return total / samples;
  };
  return clusterBootstrapDraws(sizes.length, ece, options);
}
