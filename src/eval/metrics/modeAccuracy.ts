// State-level mode accuracy: how often the predicted top label is a mode of p̂.

import { modeLabels } from "./topLabel.js";

/**
 * Fraction of states whose predicted label is a mode (argmax) of the empirical
 * counts. When p̂ has tied modes, predicting any of them counts as correct:
 * each is an equally good guess of "what usually happens next".
 *
 * @param predicted predicted class index per state
 * @param counts empirical next-event counts per state (same order)
 * @returns mode accuracy in [0, 1]; NaN for no states
 * @example modeAccuracy([1, 0], [[1, 3, 0], [2, 2, 0]]) // => 1
 * @example modeAccuracy([0], [[1, 3, 0]]) // => 0
 */
export function modeAccuracy(predicted: readonly number[], counts: readonly (readonly number[])[]): number {
  if (predicted.length !== counts.length) throw new RangeError("modeAccuracy: arrays differ in length");
  if (predicted.length === 0) return NaN;
  let hits = 0;
  for (let i = 0; i < predicted.length; i++) if (modeLabels(counts[i]!).includes(predicted[i]!)) hits++;
  return hits / predicted.length;
}
