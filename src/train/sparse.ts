// Sparse, standardised input rows for training (pure). Most feature columns are zero in any
// one row (one-hots, unused blocks), but z-scoring makes them
// dense. Instead of standardising, a row keeps its raw non-zeros (src/train/feature-matrix.ts)
// and divides each by σ where it is read, and the first layer subtracts the centre W·(μ/σ)
// once per batch, so the arithmetic is exactly that of the dense standardised row:
// W·((x − μ)/σ) = W·(x/σ) − W·(μ/σ), and the weight gradient
// Σ_r d_r·(x_r − μ)/σ = Σ_r d_r·x_r/σ − (μ/σ)·Σ_r d_r.
// The division is done where a value is read rather than stored, so no standardised copy of
// the rows exists; x_j/σ_j is the same double either way.
// Invariant: sparseForward(row r) gives the same logits as model.forward on the standardised
// dense row r (tested), up to floating-point rounding.

import type { FeatureMatrix } from "./feature-matrix.js";
import type { Standardiser } from "./standardiser.js";
import {
  addSkip,
  clipNonZero,
  denseHead,
  modelLayout,
  skipColumns,
  type ModelShape,
  type Workspace,
} from "../predict/index.js";
import { skipBackward } from "./model.js";

export interface SparseRows {
  readonly rows: number;
  readonly inputs: number;
  /** Row r's non-zeros are index/value[start[r] .. start[r+1]). */
  readonly start: Int32Array;
  readonly index: Uint16Array;
  /** x_j of each stored non-zero (raw); x_j / std[j] is the standardised value. */
  readonly value: Float32Array;
  /** σ_j per column. */
  readonly std: Float64Array;
  /** μ_j / σ_j per column. */
  readonly centre: Float64Array;
  /** The training range of each column's non-zero values (standardiser.ts); absent: no clipping. */
  readonly low?: Float64Array;
  readonly high?: Float64Array;
}

/** The raw rows `x` standardised by `s`, in sparse form (shares x's arrays). */
export function sparseRows(x: FeatureMatrix, s: Standardiser): SparseRows {
  const centre = new Float64Array(x.inputs);
  for (let j = 0; j < x.inputs; j++) centre[j] = s.mean[j] / s.std[j];
  const range = s.low !== undefined && s.high !== undefined ? { low: s.low, high: s.high } : {};
  return {
    rows: x.rows,
    inputs: x.inputs,
    start: x.start,
    index: x.index,
    value: x.value,
    std: s.std,
    centre,
    ...range,
  };
}

/**
 * The standardised value x_j / σ_j of stored non-zero k of `m`, x_j clipped into its column's
 * training range first (a no-op on the rows the range was fitted on).
 */
function standardised(m: SparseRows, k: number): number {
  const j = m.index[k];
  const x = m.low === undefined || m.high === undefined ? m.value[k] : clipNonZero(m.value[k], m.low[j], m.high[j]);
  return x / m.std[j];
}

/**
 * The first layer's centre term for the current parameters: for the MLP, C_h = Σ_j W_hj·μ_j/σ_j
 * (hidden units); for logreg, the same over each head's input weights (events, then tags).
 * Recompute it whenever the parameters change (once per mini-batch).
 */
export function firstLayerCentre(
  shape: ModelShape,
  params: Float64Array,
  centre: Float64Array,
  out: Float64Array,
): void {
  const l = modelLayout(shape);
  const d = shape.inputs;
  const dot = (w: number): number => {
    let s = 0;
    for (let j = 0; j < d; j++) s += params[w + j] * centre[j];
    return s;
  };
  if (shape.kind === "mlp") {
    const hidden = shape.hidden;
    out.fill(0, 0, hidden);
    for (let j = 0; j < d; j++) {
      const v = centre[j];
      if (v === 0) continue;
      const w = l.hiddenW + j * hidden;
      for (let h = 0; h < hidden; h++) out[h] += params[w + h] * v;
    }
    return;
  }
  for (let c = 0; c < shape.events; c++) out[c] = dot(l.eventW + c * d);
  for (let c = 0; c < shape.tags; c++) out[shape.events + c] = dot(l.tagW + c * d);
}

/** Width of firstLayerCentre's output. */
export function centreWidth(shape: ModelShape): number {
  return shape.kind === "mlp" ? shape.hidden : shape.events + shape.tags;
}

/**
 * out[c] = Σ_k W[c]_index[k] · x_k/σ for each of `classes` heads (weights of head c at w + c·d),
 * the non-zeros of one row visited once with every head's sum kept apart: each sum adds its
 * terms in the order of the row's non-zeros, as a head-by-head dot product would.
 */
function sparseDots(
  params: Float64Array,
  w: number,
  d: number,
  classes: number,
  m: SparseRows,
  from: number,
  to: number,
  out: Float64Array,
): void {
  out.fill(0, 0, classes);
  for (let k = from; k < to; k++) {
    const v = standardised(m, k);
    const at = w + m.index[k];
    for (let c = 0; c < classes; c++) out[c] += params[at + c * d] * v;
  }
}

/**
 * The standardised values of the skip columns of sparse row r into ws.skipValues: (x_j − μ_j)/σ_j,
 * which is −μ_j/σ_j for a column the row does not store. The skip reads few columns, so it is
 * computed exactly per row rather than through the centre correction.
 */
function gatherSkip(shape: ModelShape, m: SparseRows, r: number, ws: Workspace): void {
  const skip = skipColumns(shape);
  if (skip.length === 0) return;
  for (let k = 0; k < skip.length; k++) ws.skipValues[k] = -m.centre[skip[k]!]!;
  for (let at = m.start[r]!; at < m.start[r + 1]!; at++) {
    const k = skip.indexOf(m.index[at]!);
    if (k >= 0) ws.skipValues[k]! += standardised(m, at);
  }
}

/** Forward pass of sparse row r (fills ws like model.forward); `c` from firstLayerCentre. */
export function sparseForward(
  shape: ModelShape,
  params: Float64Array,
  m: SparseRows,
  r: number,
  c: Float64Array,
  ws: Workspace,
): void {
  const l = modelLayout(shape);
  const d = shape.inputs;
  const from = m.start[r];
  const to = m.start[r + 1];
  if (shape.kind === "mlp") {
    const hidden = shape.hidden;
    const pre = ws.pre;
    for (let h = 0; h < hidden; h++) pre[h] = params[l.hiddenB + h] - c[h];
    for (let k = from; k < to; k++) {
      const v = standardised(m, k);
      const w = l.hiddenW + m.index[k] * hidden;
      for (let h = 0; h < hidden; h++) pre[h] += params[w + h] * v;
    }
    for (let h = 0; h < hidden; h++) {
      const s = pre[h];
      ws.repr[h] = shape.activation === "tanh" ? Math.tanh(s) : s > 0 ? s : 0;
    }
    denseHead(params, l.eventW, l.eventB, shape.events, ws.repr, shape.hidden, ws.eventLogits);
    if (shape.tags > 0) denseHead(params, l.tagW, l.tagB, shape.tags, ws.repr, shape.hidden, ws.tagLogits);
  } else {
    // The dot products land in the logit buffers, then each logit is bias − centre + dot.
    sparseDots(params, l.eventW, d, shape.events, m, from, to, ws.eventLogits);
    for (let k = 0; k < shape.events; k++) ws.eventLogits[k] = params[l.eventB + k] - c[k] + ws.eventLogits[k];
    if (shape.tags > 0) {
      sparseDots(params, l.tagW, d, shape.tags, m, from, to, ws.tagLogits);
      for (let k = 0; k < shape.tags; k++) ws.tagLogits[k] = params[l.tagB + k] - c[shape.events + k] + ws.tagLogits[k];
    }
  }
  gatherSkip(shape, m, r, ws);
  addSkip(shape, params, ws.skipValues, ws.eventLogits);
}

/**
 * Backward pass after sparseForward on the same row: accumulates the gradient of the sparse
 * part into `grad`, and the first layer's summed unit gradients into `unitGrad` (width
 * centreWidth), which finishBatchGradient turns into the centre correction.
 */
export function sparseBackward(
  shape: ModelShape,
  params: Float64Array,
  m: SparseRows,
  r: number,
  ws: Workspace,
  dEvent: Float64Array,
  dTag: Float64Array | null,
  grad: Float64Array,
  unitGrad: Float64Array,
): void {
  const l = modelLayout(shape);
  const d = shape.inputs;
  const from = m.start[r];
  const to = m.start[r + 1];
  skipBackward(shape, ws.skipValues, dEvent, grad);
  if (shape.kind !== "mlp") {
    const tags = dTag === null ? 0 : shape.tags;
    for (let k = 0; k < shape.events; k++) {
      const g = dEvent[k];
      if (g === 0) continue;
      grad[l.eventB + k] += g;
      unitGrad[k] += g;
    }
    for (let k = 0; k < tags; k++) {
      const g = dTag![k];
      if (g === 0) continue;
      grad[l.tagB + k] += g;
      unitGrad[shape.events + k] += g;
    }
    // Each head's weight of a stored column gets g·x/σ once; the row's non-zeros are visited
    // once for all heads (every weight is written at most once per row, so the order is free).
    for (let k = from; k < to; k++) {
      const v = standardised(m, k);
      const j = m.index[k];
      for (let c = 0; c < shape.events; c++) {
        const g = dEvent[c];
        if (g !== 0) grad[l.eventW + c * d + j] += g * v;
      }
      for (let c = 0; c < tags; c++) {
        const g = dTag![c];
        if (g !== 0) grad[l.tagW + c * d + j] += g * v;
      }
    }
    return;
  }
  const width = shape.hidden;
  const dRepr = ws.dRepr;
  dRepr.fill(0);
  const head = (wAt: number, bAt: number, classes: number, dLogits: Float64Array): void => {
    for (let k = 0; k < classes; k++) {
      const g = dLogits[k];
      if (g === 0) continue;
      grad[bAt + k] += g;
      const w = wAt + k * width;
      for (let j = 0; j < width; j++) {
        grad[w + j] += g * ws.repr[j];
        dRepr[j] += g * params[w + j];
      }
    }
  };
  head(l.eventW, l.eventB, shape.events, dEvent);
  if (shape.tags > 0 && dTag !== null) head(l.tagW, l.tagB, shape.tags, dTag);
  for (let h = 0; h < width; h++) {
    const a = ws.repr[h];
    const dPre = shape.activation === "tanh" ? dRepr[h] * (1 - a * a) : ws.pre[h] > 0 ? dRepr[h] : 0;
    dRepr[h] = dPre;
    grad[l.hiddenB + h] += dPre;
    unitGrad[h] += dPre;
  }
  for (let k = from; k < to; k++) {
    const v = standardised(m, k);
    const w = l.hiddenW + m.index[k] * width;
    for (let h = 0; h < width; h++) grad[w + h] += dRepr[h] * v;
  }
}

/** Adds the centre correction −(μ_j/σ_j)·Σ_r d_r,unit to every first-layer weight; resets unitGrad. */
export function finishBatchGradient(
  shape: ModelShape,
  m: SparseRows,
  grad: Float64Array,
  unitGrad: Float64Array,
): void {
  const l = modelLayout(shape);
  const d = shape.inputs;
  const correct = (w: number, g: number): void => {
    if (g === 0) return;
    for (let j = 0; j < d; j++) grad[w + j] -= g * m.centre[j];
  };
  if (shape.kind === "mlp") {
    const hidden = shape.hidden;
    for (let j = 0; j < d; j++) {
      const c = m.centre[j];
      if (c === 0) continue;
      const w = l.hiddenW + j * hidden;
      for (let h = 0; h < hidden; h++) grad[w + h] -= c * unitGrad[h];
    }
  } else {
    for (let k = 0; k < shape.events; k++) correct(l.eventW + k * d, unitGrad[k]);
    for (let k = 0; k < shape.tags; k++) correct(l.tagW + k * d, unitGrad[shape.events + k]);
  }
  unitGrad.fill(0);
}
