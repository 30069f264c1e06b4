// The confusion matrix of predictions against observed labels, with tie credit.

import { topLabels } from "./topLabel.js";

/**
 * matrix[observed][predicted] = samples (fractional): a prediction whose top is a tie of m
 * labels adds 1/m to each of their columns. Rows are the truth, columns the prediction, as
 * in scikit-learn; each row sums to the number of samples observed with that label.
 *
 * @param probabilities predicted distribution per sample
 * @param observed class index per sample
 * @param classCount number of classes (matrix is classCount × classCount)
 * @example confusionMatrix([[1, 0], [0, 1], [0.5, 0.5]], [0, 0, 1], 2) // => [[1, 1], [0.5, 0.5]]
 */
export function confusionMatrix(
  probabilities: readonly (readonly number[])[],
  observed: readonly number[],
  classCount: number,
): number[][] {
  if (probabilities.length !== observed.length) throw new RangeError("confusionMatrix: arrays differ in length");
  const matrix = Array.from({ length: classCount }, () => new Array<number>(classCount).fill(0));
  for (let i = 0; i < probabilities.length; i++) {
    const o = observed[i]!;
    const tied = topLabels(probabilities[i]!);
    if (!(o >= 0 && o < classCount) || tied.some((p) => p >= classCount))
      throw new RangeError(`confusionMatrix: label out of range at ${i}`);
    for (const p of tied) matrix[o]![p]! += 1 / tied.length;
  }
  return matrix;
}
