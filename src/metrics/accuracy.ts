// Sample-level accuracy with tie credit: the mean credit of each sample's prediction.

import { tieCredit } from "./tieCredit.js";

/**
 * Mean over samples of tieCredit(probabilities[i], observed[i]): a prediction with one top
 * label scores 1 or 0, a tie of m labels 1/m or 0.
 *
 * In schedlab, `observed` holds each run's actual next event (one entry per sample)
 * and `probabilities` the predictor's distribution for that sample's state.
 *
 * @param probabilities predicted distribution per sample
 * @param observed observed class index per sample, same length
 * @returns accuracy in [0, 1]; NaN for empty input
 * @example accuracy([[1, 0], [0, 1], [0.5, 0.5]], [0, 0, 1]) // => (1 + 0 + 0.5) / 3 = 0.5
 */
export function accuracy(probabilities: readonly (readonly number[])[], observed: readonly number[]): number {
  if (probabilities.length !== observed.length) throw new RangeError("accuracy: arrays differ in length");
  if (probabilities.length === 0) return NaN;
  let credit = 0;
  for (let i = 0; i < probabilities.length; i++) credit += tieCredit(probabilities[i]!, observed[i]!);
  return credit / probabilities.length;
}
