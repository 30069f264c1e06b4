// Per-column standardisation of training rows (pure): the mean and standard deviation each
// feature column is z-scored by, fitted on the training rows and saved with the adapter.
// Its own file because both the sparse rows (src/train/sparse.ts) and fitting use it.

/** Per-column mean and standard deviation (std 1 for constant columns). */
export interface Standardiser {
  readonly mean: Float64Array;
  readonly std: Float64Array;
}

/** The mean and standard deviation of each column of `m`'s rows × inputs features `x`. */
export function fitStandardiser(m: {
  readonly rows: number;
  readonly inputs: number;
  readonly x: Float32Array;
}): Standardiser {
  const mean = new Float64Array(m.inputs);
  const std = new Float64Array(m.inputs);
  for (let r = 0; r < m.rows; r++) for (let j = 0; j < m.inputs; j++) mean[j] += m.x[r * m.inputs + j];
  for (let j = 0; j < m.inputs; j++) mean[j] /= Math.max(1, m.rows);
  for (let r = 0; r < m.rows; r++) {
    for (let j = 0; j < m.inputs; j++) {
      const d = m.x[r * m.inputs + j] - mean[j];
      std[j] += d * d;
    }
  }
  for (let j = 0; j < m.inputs; j++) {
    const s = Math.sqrt(std[j] / Math.max(1, m.rows));
    std[j] = s > 1e-9 ? s : 1;
  }
  return { mean, std };
}

/** The identity standardiser of `inputs` columns (mean 0, std 1): rows are used as they are. */
export function identityStandardiser(inputs: number): Standardiser {
  return { mean: new Float64Array(inputs), std: new Float64Array(inputs).fill(1) };
}
