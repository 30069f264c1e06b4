// The confusion matrix of predicted against observed labels.

/**
 * matrix[observed][predicted] = number of samples. Rows are the truth, columns the
 * prediction, as in scikit-learn.
 *
 * @param predicted class index per sample
 * @param observed class index per sample
 * @param classCount number of classes (matrix is classCount × classCount)
 * @example confusionMatrix([0, 1, 1], [0, 0, 1], 2) // => [[1, 1], [0, 1]]
 */
export function confusionMatrix(predicted: readonly number[], observed: readonly number[], classCount: number): number[][] {
  if (predicted.length !== observed.length) throw new RangeError("confusionMatrix: arrays differ in length");
  const matrix = Array.from({ length: classCount }, () => new Array<number>(classCount).fill(0));
  for (let i = 0; i < predicted.length; i++) {
    const o = observed[i]!;
    const p = predicted[i]!;
    if (!(o >= 0 && o < classCount && p >= 0 && p < classCount)) {
      throw new RangeError(`confusionMatrix: label out of range at ${i}`);
    }
    matrix[o]![p]! += 1;
  }
  return matrix;
}
