// The student network's answer for one raw feature row (pure): the row standardised with the
// adapter's mean and deviation, then one model's event logits, or the members' mean distribution
// (each at its own temperature) as logits. The predictor and the training's evidence fit both read
// rows through it, so what calibration is fitted on is what the predictor computes.

import { softmaxInPlace } from "../calibration.js";
import { FEATURE_COUNT } from "./features.js";
import { forward, newWorkspace, type ModelShape, type Workspace } from "./model.js";

/** A trained ensemble as inference needs it. */
export interface StudentNetwork {
  readonly shape: ModelShape;
  readonly members: readonly Float64Array[];
  readonly mean: ArrayLike<number>;
  readonly std: ArrayLike<number>;
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

export function networkReader(network: StudentNetwork): NetworkReader {
  const { shape, members, mean, std, memberTemperatures } = network;
  const ws: Workspace = newWorkspace(shape);
  const row = new Float64Array(FEATURE_COUNT);
  const tags = new Float64Array(Math.max(1, shape.tags));
  return {
    tags,
    read(x, offset, logits) {
      for (let j = 0; j < FEATURE_COUNT; j++) row[j] = (x[offset + j] - mean[j]) / std[j];
      if (members.length === 1) {
        forward(shape, members[0], row, 0, ws);
        logits.set(ws.eventLogits.subarray(0, shape.events));
        tags.set(ws.tagLogits.subarray(0, tags.length));
        return;
      }
      // The members' mean distribution, as logits (ensembleLogits in src/train/fit.ts does the same).
      logits.fill(0, 0, shape.events);
      tags.fill(0);
      for (const [m, member] of members.entries()) {
        forward(shape, member, row, 0, ws);
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
