// Conformal prediction sets of a classifier under the LAC score (1 − probability of the label):
// the score of a label, and the labels a threshold from conformalThreshold admits.

/**
 * The LAC nonconformity score (Sadinle, Lei & Wasserman 2019, "least ambiguous set-valued
 * classifiers"): 1 − q_y. Of the split-conformal scores it gives the smallest sets on average.
 *
 * @param probabilities the predicted distribution
 * @param label a class index
 * @returns 1 − q_label, in [0, 1]
 * @example labelScore([0.7, 0.2, 0.1], 1) // => 0.8
 */
export function labelScore(probabilities: ArrayLike<number>, label: number): number {
  return 1 - (probabilities[label] ?? 0);
}

/**
 * The labels k with labelScore(q, k) ≤ threshold, in class order: the conformal prediction set.
 * It holds the observed label exactly when that label's score is ≤ the threshold; an infinite
 * threshold gives every label, a threshold below every score the empty set.
 *
 * @param probabilities the predicted distribution
 * @param threshold t̂ of conformalThreshold
 * @returns class indices in the set
 * @example predictionSet([0.7, 0.2, 0.1], 0.85) // => [0, 1]
 */
export function predictionSet(probabilities: ArrayLike<number>, threshold: number): number[] {
  const set: number[] = [];
  for (let k = 0; k < probabilities.length; k++) if (labelScore(probabilities, k) <= threshold) set.push(k);
  return set;
}

/**
 * How many labels predictionSet(probabilities, threshold) holds, without building the set.
 *
 * @example predictionSetSize([0.7, 0.2, 0.1], 0.85) // => 2
 */
export function predictionSetSize(probabilities: ArrayLike<number>, threshold: number): number {
  let size = 0;
  for (let k = 0; k < probabilities.length; k++) if (labelScore(probabilities, k) <= threshold) size++;
  return size;
}
