// Per-column standardisation of training rows (pure): the mean and standard deviation each
// feature column is z-scored by, fitted on the training rows and saved with the adapter.
// Its own file because both the sparse rows (src/train/sparse.ts) and fitting use it.

import type { FeatureMatrix } from "./feature-matrix.js";

/**
 * Per-column mean and standard deviation (std 1 for constant columns) and, when fitted on rows,
 * the range of each column's non-zero values in those rows: a non-zero value outside it is
 * clipped into it before the network reads it (clipNonZero, src/predict/student/inference.ts), so a row from code unlike the
 * training rows never drives the network further than the training rows did. A column never
 * non-zero there has the range [0, 0]: what it would say was never learned.
 */
export interface Standardiser {
  readonly mean: Float64Array;
  readonly std: Float64Array;
  readonly low?: Float64Array;
  readonly high?: Float64Array;
}

/**
 * The mean and standard deviation of each column of the raw feature rows `x`. The sums run
 * row by row over every column, unstored zeros included, in the order a dense pass would take,
 * so the result is the dense computation's to the bit.
 */
export function fitStandardiser(m: { readonly x: FeatureMatrix }): Standardiser {
  const { rows, inputs, start, index, value } = m.x;
  const mean = new Float64Array(inputs);
  const std = new Float64Array(inputs);
  const low = new Float64Array(inputs).fill(Infinity);
  const high = new Float64Array(inputs).fill(-Infinity);
  // Adding an unstored zero leaves a sum as it is, so the mean's sums skip them.
  for (let k = 0; k < start[rows]; k++) {
    const j = index[k];
    mean[j] += value[k];
    if (value[k] < low[j]) low[j] = value[k];
    if (value[k] > high[j]) high[j] = value[k];
  }
  for (let j = 0; j < inputs; j++) {
    if (low[j] > high[j]) low[j] = high[j] = 0;
  }
  for (let j = 0; j < inputs; j++) mean[j] /= Math.max(1, rows);
  for (let r = 0; r < rows; r++) {
    let k = start[r];
    const stop = start[r + 1];
    for (let j = 0; j < inputs; j++) {
      const x = k < stop && index[k] === j ? value[k++] : 0;
      const d = x - mean[j];
      std[j] += d * d;
    }
  }
  for (let j = 0; j < inputs; j++) {
    const s = Math.sqrt(std[j] / Math.max(1, rows));
    std[j] = s > 1e-9 ? s : 1;
  }
  return { mean, std, low, high };
}

/** The identity standardiser of `inputs` columns (mean 0, std 1): rows are used as they are. */
export function identityStandardiser(inputs: number): Standardiser {
  return { mean: new Float64Array(inputs), std: new Float64Array(inputs).fill(1) };
}
