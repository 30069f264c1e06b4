// The student networks' forward pass (pure Float64Array math): multinomial logistic
// regression and a one-hidden-layer MLP, each with an event head (6 classes) and an optional
// tag head, and an optional linear skip from chosen input columns straight into the event logits.
// Invariant: all parameters live in one flat Float64Array; `layout` gives each block's offset, so
// Adam, L2 and serialisation treat the model as one vector.

export const MODEL_KINDS = ["logreg", "mlp"] as const;
export type ModelKind = (typeof MODEL_KINDS)[number];
export const ACTIVATIONS = ["tanh", "relu"] as const;
export type Activation = (typeof ACTIVATIONS)[number];

export interface ModelShape {
  readonly kind: ModelKind;
  readonly inputs: number;
  /** Hidden units (MLP only; 0 for logreg). */
  readonly hidden: number;
  readonly activation: Activation;
  readonly events: number;
  /** Tag classes of the auxiliary head; 0 without one. */
  readonly tags: number;
  /**
   * Input columns wired linearly into the event logits beside the hidden layer (a "wide" part);
   * absent or empty: none. The student uses it for the n-gram experts' log-probabilities
   * (EXPERT_SKIP_COLUMNS), so the network learns a correction on top of a product of experts.
   */
  readonly skip?: readonly number[];
}

/**
 * Offsets of each parameter block in the flat vector; -1 for absent blocks. The MLP's hidden
 * weights are input-major (weight of input j into unit h at hiddenW + j·hidden + h), so a row's
 * non-zero inputs each touch one contiguous run of weights; heads are class-major.
 */
export interface ModelLayout {
  readonly hiddenW: number;
  readonly hiddenB: number;
  readonly eventW: number;
  readonly eventB: number;
  readonly tagW: number;
  readonly tagB: number;
  /** Skip weights, class-major (events × skip columns). */
  readonly skipW: number;
  readonly size: number;
  /** Width of the representation the heads read: hidden units or inputs. */
  readonly repr: number;
}

export function modelLayout(shape: ModelShape): ModelLayout {
  let at = 0;
  const take = (n: number): number => {
    const start = at;
    at += n;
    return start;
  };
  const mlp = shape.kind === "mlp";
  const hiddenW = mlp ? take(shape.hidden * shape.inputs) : -1;
  const hiddenB = mlp ? take(shape.hidden) : -1;
  const repr = mlp ? shape.hidden : shape.inputs;
  const eventW = take(shape.events * repr);
  const eventB = take(shape.events);
  const tagW = shape.tags > 0 ? take(shape.tags * repr) : -1;
  const tagB = shape.tags > 0 ? take(shape.tags) : -1;
  const skips = skipColumns(shape).length;
  const skipW = skips > 0 ? take(shape.events * skips) : -1;
  return { hiddenW, hiddenB, eventW, eventB, tagW, tagB, skipW, size: at, repr };
}

export const skipColumns = (shape: ModelShape): readonly number[] => shape.skip ?? [];

/** Adds the skip's contribution W_skip·v to the event logits, v the skip columns' (standardised) values. */
export function addSkip(shape: ModelShape, params: Float64Array, values: Float64Array, logits: Float64Array): void {
  const skips = skipColumns(shape).length;
  if (skips === 0) return;
  const w = modelLayout(shape).skipW;
  for (let c = 0; c < shape.events; c++) {
    let s = 0;
    for (let k = 0; k < skips; k++) s += params[w + c * skips + k] * values[k];
    logits[c] += s;
  }
}

/** Scratch buffers for one forward/backward pass; reuse across rows. */
export interface Workspace {
  readonly pre: Float64Array;
  readonly repr: Float64Array;
  readonly eventLogits: Float64Array;
  readonly tagLogits: Float64Array;
  readonly dRepr: Float64Array;
  /** The skip columns' values of the current row. */
  readonly skipValues: Float64Array;
}

export function newWorkspace(shape: ModelShape): Workspace {
  const l = modelLayout(shape);
  return {
    pre: new Float64Array(Math.max(1, shape.hidden)),
    repr: new Float64Array(l.repr),
    eventLogits: new Float64Array(shape.events),
    tagLogits: new Float64Array(Math.max(1, shape.tags)),
    dRepr: new Float64Array(l.repr),
    skipValues: new Float64Array(skipColumns(shape).length),
  };
}

/** Forward pass of row `x[offset .. offset+inputs)`: fills ws.repr, ws.eventLogits, ws.tagLogits. */
export function forward(
  shape: ModelShape,
  params: Float64Array,
  x: ArrayLike<number>,
  offset: number,
  ws: Workspace,
): void {
  const l = modelLayout(shape);
  const d = shape.inputs;
  if (shape.kind === "mlp") {
    hiddenInputs(params, l.hiddenW, params, l.hiddenB, d, shape.hidden, x, offset, ws.pre);
    activate(shape, ws);
  } else {
    for (let j = 0; j < d; j++) ws.repr[j] = x[offset + j];
  }
  const skip = skipColumns(shape);
  for (let k = 0; k < skip.length; k++) ws.skipValues[k] = x[offset + skip[k]!];
  outputHeads(shape, params, ws);
}

/**
 * An MLP's hidden pre-activations of row x[offset .. offset + inputs): pre[h] = bias[bAt + h] +
 * Σ_j weights[wAt + j·hidden + h]·x_j over the row's non-zero inputs (the weights input-major).
 */
export function hiddenInputs(
  weights: Float64Array,
  wAt: number,
  bias: Float64Array,
  bAt: number,
  inputs: number,
  hidden: number,
  x: ArrayLike<number>,
  offset: number,
  pre: Float64Array,
): void {
  for (let h = 0; h < hidden; h++) pre[h] = bias[bAt + h];
  for (let j = 0; j < inputs; j++) {
    const v = x[offset + j];
    if (v === 0) continue;
    const w = wAt + j * hidden;
    for (let h = 0; h < hidden; h++) pre[h] += weights[w + h] * v;
  }
}

/** The hidden layer's activation of ws.pre into ws.repr (an MLP's). */
export function activate(shape: ModelShape, ws: Workspace): void {
  for (let h = 0; h < shape.hidden; h++) {
    const s = ws.pre[h];
    ws.repr[h] = shape.activation === "tanh" ? Math.tanh(s) : s > 0 ? s : 0;
  }
}

/** The output heads from ws.repr and ws.skipValues: ws.eventLogits (with the skip) and ws.tagLogits. */
export function outputHeads(shape: ModelShape, params: Float64Array, ws: Workspace): void {
  const l = modelLayout(shape);
  denseHead(params, l.eventW, l.eventB, shape.events, ws.repr, l.repr, ws.eventLogits);
  if (skipColumns(shape).length > 0) addSkip(shape, params, ws.skipValues, ws.eventLogits);
  if (shape.tags > 0) denseHead(params, l.tagW, l.tagB, shape.tags, ws.repr, l.repr, ws.tagLogits);
}

/** One dense output head: out[c] = bias[c] + Σ_j W[c][j] · repr[j], the weights row-major at wAt, the biases at bAt. */
export function denseHead(
  params: Float64Array,
  wAt: number,
  bAt: number,
  classes: number,
  repr: Float64Array,
  width: number,
  out: Float64Array,
): void {
  for (let c = 0; c < classes; c++) {
    let s = params[bAt + c];
    const w = wAt + c * width;
    for (let j = 0; j < width; j++) s += params[w + j] * repr[j];
    out[c] = s;
  }
}
