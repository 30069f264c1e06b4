// Per-column standardisation of training rows (pure): the mean and standard deviation each
// feature column is z-scored by, fitted on the training rows and saved with the adapter.
// Its own file because both the sparse rows (src/train/sparse.ts) and fitting use it.

import type { FeatureMatrix } from "./feature-matrix.js";

/** Per-column mean and standard deviation (std 1 for constant columns). */
export interface Standardiser {
  readonly mean: Float64Array;
  readonly std: Float64Array;
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
  // Adding an unstored zero leaves a sum as it is, so the mean's sums skip them.
  for (let k = 0; k < start[rows]; k++) mean[index[k]] += value[k];
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
  return { mean, std };
}

/** The identity standardiser of `inputs` columns (mean 0, std 1): rows are used as they are. */
export function identityStandardiser(inputs: number): Standardiser {
  return { mean: new Float64Array(inputs), std: new Float64Array(inputs).fill(1) };
}
