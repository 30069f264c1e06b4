// State-level mode accuracy: how often the predicted top label is a mode of p̂, with tie credit.

import { modeLabels, topLabels } from "./topLabel.js";

/**
 * Mean over states of |top(q) ∩ modes(p̂)| / |top(q)|: the share of the prediction's tied top
 * labels that are a mode (argmax) of the empirical counts. When p̂ has tied modes, predicting
 * any of them counts as correct: each is an equally good guess of "what usually happens next".
 *
 * @param probabilities predicted distribution per state
 * @param counts empirical next-event counts per state (same order)
 * @returns mode accuracy in [0, 1]; NaN for no states
 * @example modeAccuracy([[0, 1, 0], [1, 0, 0]], [[1, 3, 0], [2, 2, 0]]) // => 1
 * @example modeAccuracy([[0.5, 0.5, 0]], [[1, 3, 0]]) // => 0.5
 */
export function modeAccuracy(
  probabilities: readonly (readonly number[])[],
  counts: readonly (readonly number[])[],
): number {
  if (probabilities.length !== counts.length) throw new RangeError("modeAccuracy: arrays differ in length");
  if (probabilities.length === 0) return NaN;
  let hits = 0;
  for (let i = 0; i < probabilities.length; i++) {
    const modes = modeLabels(counts[i]!);
    const tied = topLabels(probabilities[i]!);
    hits += tied.filter((k) => modes.includes(k)).length / tied.length;
  }
  return hits / probabilities.length;
}
