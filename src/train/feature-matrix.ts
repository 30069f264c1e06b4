// Raw feature rows of training in compressed sparse form (pure): most of a row's columns are
// zero, so a row keeps only its non-zero columns and values, built run by run from the
// prefixes without ever holding the dense rows × FEATURE_COUNT matrix. The values are the
// Float32 features featurizePrefixes computes, unchanged, so anything read from here equals
// what the dense matrix held.

import { EVENT_TYPES } from "../core/index.js";
import type { GoroutineRecord } from "../core/index.js";
import type { Prefix } from "../dataset/index.js";
import { FEATURE_COUNT, featurizePrefixes, type FeatureInputs } from "../predict/index.js";

const K = EVENT_TYPES.length;
/** Columns a Uint16 index can name. */
const MAX_INPUTS = 1 << 16;

/**
 * rows × inputs raw features; row r's non-zero columns, ascending, are index[start[r] ..
 * start[r+1]) and their values value[start[r] .. start[r+1]). A zero (either sign) is not
 * stored; NaN is.
 */
export interface FeatureMatrix {
  readonly rows: number;
  readonly inputs: number;
  readonly start: Int32Array;
  readonly index: Uint16Array;
  readonly value: Float32Array;
}

function checkInputs(inputs: number): void {
  if (inputs > MAX_INPUTS) throw new Error(`FeatureMatrix: ${inputs} columns, at most ${MAX_INPUTS}`);
}

/** The sparse form of the dense rows × inputs matrix `x`. */
export function featureMatrixOf(x: Float32Array, rows: number, inputs: number): FeatureMatrix {
  checkInputs(inputs);
  let nonZero = 0;
  for (let i = 0; i < rows * inputs; i++) if (x[i] !== 0) nonZero++;
  const start = new Int32Array(rows + 1);
  const index = new Uint16Array(nonZero);
  const value = new Float32Array(nonZero);
  let at = 0;
  for (let r = 0; r < rows; r++) {
    start[r] = at;
    const base = r * inputs;
    for (let j = 0; j < inputs; j++) {
      const v = x[base + j];
      if (v !== 0) {
        index[at] = j;
        value[at++] = v;
      }
    }
  }
  start[rows] = at;
  return { rows, inputs, start, index, value };
}

/**
 * The features of `prefixes` (row i for prefixes[i]) and their feasible-event flags:
 * featurizePrefixes run by run (one forward walk per run, as it does for all of them at once),
 * each run's dense rows compressed at once, so only one run's dense rows exist at a time.
 */
export function featurizeSparse(
  prefixes: readonly Prefix[],
  inputs: FeatureInputs,
): { x: FeatureMatrix; feasible: Uint8Array } {
  const n = prefixes.length;
  const feasible = new Uint8Array(n * K);
  const byRun = new Map<readonly GoroutineRecord[], number[]>();
  prefixes.forEach((prefix, i) => {
    const list = byRun.get(prefix.records);
    if (list === undefined) byRun.set(prefix.records, [i]);
    else list.push(i);
  });
  // Each run's rows as one compressed chunk; row i is `length[i]` entries of chunk `chunkOf[i]` from `offset[i]`.
  const chunks: FeatureMatrix[] = [];
  const chunkOf = new Int32Array(n);
  const rowInChunk = new Int32Array(n);
  for (const indices of byRun.values()) {
    const rows = featurizePrefixes(
      indices.map((i) => prefixes[i]),
      inputs,
    );
    const chunk = featureMatrixOf(rows.x, indices.length, FEATURE_COUNT);
    indices.forEach((i, k) => {
      chunkOf[i] = chunks.length;
      rowInChunk[i] = k;
      feasible.set(rows.feasible.subarray(k * K, (k + 1) * K), i * K);
    });
    chunks.push(chunk);
  }
  const x = concatenatedRows(
    n,
    FEATURE_COUNT,
    (i) => chunks[chunkOf[i]],
    (i) => rowInChunk[i],
  );
  return { x, feasible };
}

/** Row i of the result is row `rowOf(i)` of matrix `matrixOf(i)` (all with `inputs` columns). */
function concatenatedRows(
  rows: number,
  inputs: number,
  matrixOf: (i: number) => FeatureMatrix,
  rowOf: (i: number) => number,
): FeatureMatrix {
  checkInputs(inputs);
  let nonZero = 0;
  for (let i = 0; i < rows; i++) {
    const m = matrixOf(i);
    const r = rowOf(i);
    nonZero += m.start[r + 1] - m.start[r];
  }
  const start = new Int32Array(rows + 1);
  const index = new Uint16Array(nonZero);
  const value = new Float32Array(nonZero);
  let at = 0;
  for (let i = 0; i < rows; i++) {
    const m = matrixOf(i);
    const r = rowOf(i);
    const from = m.start[r];
    const to = m.start[r + 1];
    start[i] = at;
    index.set(m.index.subarray(from, to), at);
    value.set(m.value.subarray(from, to), at);
    at += to - from;
  }
  start[rows] = at;
  return { rows, inputs, start, index, value };
}

/** Rows `indices` of `m`, in that order (copied). */
export function featureRowsAt(m: FeatureMatrix, indices: readonly number[]): FeatureMatrix {
  return concatenatedRows(
    indices.length,
    m.inputs,
    () => m,
    (i) => indices[i],
  );
}

/** The rows of `a`, then those of `b` (same columns). */
export function joinedFeatureRows(a: FeatureMatrix, b: FeatureMatrix): FeatureMatrix {
  if (a.inputs !== b.inputs) throw new Error(`joinedFeatureRows: ${a.inputs} and ${b.inputs} columns`);
  return concatenatedRows(
    a.rows + b.rows,
    a.inputs,
    (i) => (i < a.rows ? a : b),
    (i) => (i < a.rows ? i : i - a.rows),
  );
}

/** The dense rows × inputs matrix (zeros where nothing is stored), for readers that index it by row and column. */
export function denseFeatures(m: FeatureMatrix): Float32Array {
  const x = new Float32Array(m.rows * m.inputs);
  for (let r = 0; r < m.rows; r++)
    for (let k = m.start[r]; k < m.start[r + 1]; k++) x[r * m.inputs + m.index[k]] = m.value[k];
  return x;
}

/** The values of column `column` of every row (0 where nothing is stored). */
export function featureColumnOf(m: FeatureMatrix, column: number): Float64Array {
  const out = new Float64Array(m.rows);
  for (let r = 0; r < m.rows; r++) {
    for (let k = m.start[r]; k < m.start[r + 1]; k++) {
      const j = m.index[k];
      if (j === column) out[r] = m.value[k];
      if (j >= column) break;
    }
  }
  return out;
}
