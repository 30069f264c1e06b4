// The majority baseline: the accuracy of predicting one fixed label for every sample.

/**
 * Fraction of observed labels equal to `majorityLabel`. The label should be the
 * most frequent one of the *training* data, so the baseline is honest on a holdout.
 *
 * @param observed observed class index per sample
 * @param majorityLabel the label always predicted
 * @returns accuracy in [0, 1]; NaN for empty input
 * @example majorityAccuracy([1, 1, 0, 2], 1) // => 0.5
 */
export function majorityAccuracy(observed: ArrayLike<number>, majorityLabel: number): number {
  if (observed.length === 0) return NaN;
  let hits = 0;
  for (let i = 0; i < observed.length; i++) if (observed[i] === majorityLabel) hits++;
  return hits / observed.length;
}

/**
 * The most frequent label in `observed` (lowest index on ties), or 0 when empty.
 *
 * @param classCount number of classes
 * @example majorityLabel([2, 1, 2, 0], 3) // => 2
 */
export function majorityLabel(observed: ArrayLike<number>, classCount: number): number {
  const tally = new Array<number>(classCount).fill(0);
  for (let i = 0; i < observed.length; i++) tally[observed[i]!]! += 1;
  let best = 0;
  for (let k = 1; k < classCount; k++) if (tally[k]! > tally[best]!) best = k;
  return best;
}
