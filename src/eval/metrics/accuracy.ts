// Sample-level accuracy: the fraction of predicted labels equal to the observed ones.

/**
 * Fraction of positions where `predicted[i] === observed[i]`.
 *
 * In schedlab, `observed` holds each run's actual next event (one entry per sample)
 * and `predicted` the top label of the predictor's distribution for that sample's state.
 *
 * @param predicted class indices, one per sample
 * @param observed class indices, same length
 * @returns accuracy in [0, 1]; NaN for empty input
 * @example accuracy([0, 1, 1, 2], [0, 1, 2, 2]) // => 0.75
 */
export function accuracy(predicted: readonly number[], observed: readonly number[]): number {
  if (predicted.length !== observed.length) throw new RangeError("accuracy: arrays differ in length");
  if (predicted.length === 0) return NaN;
  let hits = 0;
  for (let i = 0; i < predicted.length; i++) if (predicted[i] === observed[i]) hits++;
  return hits / predicted.length;
}
