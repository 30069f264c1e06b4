// The student network's answer for one raw feature row (pure): the row standardised with the
// adapter's mean and deviation, then one model's event logits, or the members' mean distribution
// (each at its own temperature) as logits. The predictor and the training's evidence fit both read
// rows through it, so what calibration is fitted on is what the predictor computes.
//
// An MLP's first layer reads the raw row with the standardisation folded into its weights
// (W·((x − μ)/σ) + b = (W/σ)·x + (b − W·μ/σ)), so it skips the raw row's zeros — about two
// thirds of the columns — as training's sparse pass does; the result equals the dense pass on
// the standardised row up to rounding.

import { softmaxInPlace } from "../calibration.js";
import { FEATURE_COUNT } from "./features.js";
import {
  activate,
  forward,
  hiddenInputs,
  modelLayout,
  newWorkspace,
  outputHeads,
  skipColumns,
  type ModelShape,
  type Workspace,
} from "./model.js";

/** A trained ensemble as inference needs it. */
export interface StudentNetwork {
  readonly shape: ModelShape;
  readonly members: readonly Float64Array[];
  readonly mean: ArrayLike<number>;
  readonly std: ArrayLike<number>;
  /**
   * The training range of each column's non-zero values: a non-zero raw value outside it is
   * clipped into it before the network reads it (zeros stay zero); absent: no clipping.
   */
  readonly low?: ArrayLike<number>;
  readonly high?: ArrayLike<number>;
  /** Each member's temperature before the mean (1 each when not fitted). */
  readonly memberTemperatures: readonly number[];
}

/** Reads rows through a network; the buffers are reused from row to row. */
export interface NetworkReader {
  /**
   * Event logits (or the log of the members' mean distribution) of raw row x[offset ..
   * offset + FEATURE_COUNT) into `logits` (≥ shape.events long); the tag head's distribution
   * (members' mean; logits for one member) is left in `tags`.
   */
  readonly read: (x: ArrayLike<number>, offset: number, logits: Float64Array) => void;
  readonly tags: Float64Array;
}

/**
 * x clipped into [low, high] unless it is zero (zeros stay zero: an absent feature is not out of
 * range). The one rule by which the predictor and training's sparse rows read a feature outside
 * its training range.
 */
export function clipNonZero(x: number, low: number, high: number): number {
  return x === 0 ? 0 : x < low ? low : x > high ? high : x;
}

export function networkReader(network: StudentNetwork): NetworkReader {
  const { shape, members, mean, std, memberTemperatures, low, high } = network;
  const ws: Workspace = newWorkspace(shape);
  const row = new Float64Array(FEATURE_COUNT);
  const clipped = new Float64Array(FEATURE_COUNT);
  /** The raw row the network reads: x itself, or its copy clipped into the training range. */
  const input = (x: ArrayLike<number>, offset: number): { x: ArrayLike<number>; offset: number } => {
    if (low === undefined || high === undefined) return { x, offset };
    for (let j = 0; j < FEATURE_COUNT; j++) clipped[j] = clipNonZero(x[offset + j], low[j], high[j]);
    return { x: clipped, offset: 0 };
  };
  const tags = new Float64Array(Math.max(1, shape.tags));
  const folded = shape.kind === "mlp" ? members.map((params) => foldedFirstLayer(shape, params, mean, std)) : null;
  const skip = skipColumns(shape);
  /** One member's logits of raw row x[offset ..) into ws. */
  const member = (m: number, x: ArrayLike<number>, offset: number): void => {
    if (folded === null) {
      for (let j = 0; j < FEATURE_COUNT; j++) row[j] = (x[offset + j] - mean[j]) / std[j];
      forward(shape, members[m], row, 0, ws);
      return;
    }
    const { weights, bias } = folded[m];
    hiddenInputs(weights, 0, bias, 0, shape.inputs, shape.hidden, x, offset, ws.pre);
    activate(shape, ws);
    for (let k = 0; k < skip.length; k++) {
      const j = skip[k]!;
      ws.skipValues[k] = (x[offset + j] - mean[j]) / std[j];
    }
    outputHeads(shape, members[m], ws);
  };
  return {
    tags,
    read(raw, rawOffset, logits) {
      const { x, offset } = input(raw, rawOffset);
      if (members.length === 1) {
        member(0, x, offset);
        logits.set(ws.eventLogits.subarray(0, shape.events));
        tags.set(ws.tagLogits.subarray(0, tags.length));
        return;
      }
      // The members' mean distribution, as logits (ensembleLogits in src/train/fit.ts does the same).
      logits.fill(0, 0, shape.events);
      tags.fill(0);
      for (let m = 0; m < members.length; m++) {
        member(m, x, offset);
        softmaxInPlace(ws.eventLogits, shape.events, memberTemperatures[m]);
        for (let c = 0; c < shape.events; c++) logits[c] += ws.eventLogits[c] / members.length;
        if (shape.tags > 0) {
          softmaxInPlace(ws.tagLogits, shape.tags);
          for (let c = 0; c < shape.tags; c++) tags[c] += ws.tagLogits[c] / members.length;
        }
      }
      for (let c = 0; c < shape.events; c++) logits[c] = Math.log(Math.max(logits[c], 1e-300));
    },
  };
}

/** An MLP's first layer with the standardisation folded in: weights W[j][h]/σ_j (row-major by input), bias b[h] − Σ_j W[j][h]·μ_j/σ_j. */
function foldedFirstLayer(
  shape: ModelShape,
  params: Float64Array,
  mean: ArrayLike<number>,
  std: ArrayLike<number>,
): { readonly weights: Float64Array; readonly bias: Float64Array } {
  const l = modelLayout(shape);
  const hidden = shape.hidden;
  const weights = new Float64Array(shape.inputs * hidden);
  const bias = Float64Array.from(params.subarray(l.hiddenB, l.hiddenB + hidden));
  for (let j = 0; j < shape.inputs; j++) {
    for (let h = 0; h < hidden; h++) {
      const w = params[l.hiddenW + j * hidden + h];
      weights[j * hidden + h] = w / std[j];
      bias[h] -= (w * mean[j]) / std[j];
    }
  }
  return { weights, bias };
}
