// Fitting the student networks of src/predict/student/model.ts: initial parameters, the
// backward pass of its forward pass, and the Adam optimiser over the flat parameter vector.

import { modelLayout, skipColumns, type ModelShape, type Workspace } from "../predict/index.js";
import type { RandomSource } from "../random.js";

/** Whether parameter i is a weight (L2-penalised) rather than a bias. */
export function weightMask(shape: ModelShape): Uint8Array {
  const l = modelLayout(shape);
  const mask = new Uint8Array(l.size);
  const mark = (start: number, n: number): void => {
    if (start >= 0) mask.fill(1, start, start + n);
  };
  mark(l.hiddenW, shape.hidden * shape.inputs);
  mark(l.eventW, shape.events * l.repr);
  mark(l.tagW, shape.tags * l.repr);
  mark(l.skipW, shape.events * skipColumns(shape).length);
  return mask;
}

/** Glorot-uniform weights, zero biases, drawn from `random` in a fixed order. */
export function initialParameters(shape: ModelShape, random: RandomSource): Float64Array {
  const l = modelLayout(shape);
  const params = new Float64Array(l.size);
  const fill = (start: number, fanIn: number, fanOut: number): void => {
    if (start < 0) return;
    const limit = Math.sqrt(6 / (fanIn + fanOut));
    for (let i = 0; i < fanIn * fanOut; i++) params[start + i] = (random() * 2 - 1) * limit;
  };
  if (shape.kind === "mlp") fill(l.hiddenW, shape.inputs, shape.hidden);
  fill(l.eventW, l.repr, shape.events);
  fill(l.tagW, l.repr, shape.tags);
  // Skip weights start at zero: the network starts as it would without the skip.
  return params;
}

/**
 * Backward pass after `forward` on the same row. `dEvent`/`dTag` are the loss gradients
 * with respect to the logits (already scaled by the row weight); accumulates into `grad`.
 */
export function backward(
  shape: ModelShape,
  params: Float64Array,
  x: ArrayLike<number>,
  offset: number,
  ws: Workspace,
  dEvent: Float64Array,
  dTag: Float64Array | null,
  grad: Float64Array,
): void {
  const l = modelLayout(shape);
  const width = l.repr;
  const dRepr = ws.dRepr;
  dRepr.fill(0);
  headBackward(params, l.eventW, l.eventB, shape.events, ws.repr, width, dEvent, grad, dRepr);
  if (shape.tags > 0 && dTag !== null)
    headBackward(params, l.tagW, l.tagB, shape.tags, ws.repr, width, dTag, grad, dRepr);
  skipBackward(shape, ws.skipValues, dEvent, grad);
  if (shape.kind !== "mlp") return;
  const d = shape.inputs;
  const hidden = shape.hidden;
  for (let h = 0; h < hidden; h++) {
    const a = ws.repr[h];
    dRepr[h] = shape.activation === "tanh" ? dRepr[h] * (1 - a * a) : ws.pre[h] > 0 ? dRepr[h] : 0;
    grad[l.hiddenB + h] += dRepr[h];
  }
  for (let j = 0; j < d; j++) {
    const v = x[offset + j];
    if (v === 0) continue;
    const w = l.hiddenW + j * hidden;
    for (let h = 0; h < hidden; h++) grad[w + h] += dRepr[h] * v;
  }
}

/** Accumulates the skip weights' gradient dEvent ⊗ v (v: the row's skip values, as forward left them). */
export function skipBackward(shape: ModelShape, values: Float64Array, dEvent: Float64Array, grad: Float64Array): void {
  const skips = skipColumns(shape).length;
  if (skips === 0) return;
  const w = modelLayout(shape).skipW;
  for (let c = 0; c < shape.events; c++) {
    const g = dEvent[c];
    if (g === 0) continue;
    for (let k = 0; k < skips; k++) grad[w + c * skips + k] += g * values[k];
  }
}

function headBackward(
  params: Float64Array,
  wAt: number,
  bAt: number,
  classes: number,
  repr: Float64Array,
  width: number,
  dLogits: Float64Array,
  grad: Float64Array,
  dRepr: Float64Array,
): void {
  for (let c = 0; c < classes; c++) {
    const g = dLogits[c];
    if (g === 0) continue;
    grad[bAt + c] += g;
    const w = wAt + c * width;
    for (let j = 0; j < width; j++) {
      grad[w + j] += g * repr[j];
      dRepr[j] += g * params[w + j];
    }
  }
}

/** Adam optimiser state over a flat parameter vector. */
export interface AdamState {
  readonly m: Float64Array;
  readonly v: Float64Array;
  step: number;
}

export function newAdam(size: number): AdamState {
  return { m: new Float64Array(size), v: new Float64Array(size), step: 0 };
}

/** One Adam step (β1 0.9, β2 0.999, ε 1e-8) with L2 `l2` added to the gradient of weights. */
export function adamStep(
  params: Float64Array,
  grad: Float64Array,
  state: AdamState,
  rate: number,
  l2: number,
  mask: Uint8Array,
): void {
  state.step++;
  const b1 = 0.9;
  const b2 = 0.999;
  const c1 = 1 - Math.pow(b1, state.step);
  const c2 = 1 - Math.pow(b2, state.step);
  for (let i = 0; i < params.length; i++) {
    const g = grad[i] + (mask[i] === 1 ? l2 * params[i] : 0);
    state.m[i] = b1 * state.m[i] + (1 - b1) * g;
    state.v[i] = b2 * state.v[i] + (1 - b2) * g * g;
    params[i] -= (rate * (state.m[i] / c1)) / (Math.sqrt(state.v[i] / c2) + 1e-8);
  }
}
