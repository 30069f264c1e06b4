// Per-class precision, recall, F1 and support, read off a confusion matrix.

export interface ClassScores {
  /** TP / (TP + FP); NaN when the class was never predicted. */
  readonly precision: number;
  /** TP / (TP + FN); NaN when the class never occurred (support 0). */
  readonly recall: number;
  /**
   * Harmonic mean of precision and recall. When only one of them is defined
   * (never predicted, or never occurred) F1 is 0: the predictor either missed
   * every occurrence or predicted a class that never happened. NaN when the class
   * neither occurred nor was predicted (nothing to score).
   */
  readonly f1: number;
  /** Number of samples whose observed label is this class. */
  readonly support: number;
  /** Number of samples predicted as this class. */
  readonly predicted: number;
}

/**
 * Scores for every class of `matrix` (rows observed, columns predicted).
 *
 * @example classScores([[1, 1], [0, 1]])
 * // => [{precision: 1, recall: 0.5, f1: 2/3, support: 2, predicted: 1},
 * //     {precision: 0.5, recall: 1, f1: 2/3, support: 1, predicted: 2}]
 */
export function classScores(matrix: readonly (readonly number[])[]): ClassScores[] {
  const k = matrix.length;
  const scores: ClassScores[] = [];
  for (let c = 0; c < k; c++) {
    const tp = matrix[c]![c]!;
    let support = 0;
    let predicted = 0;
    for (let j = 0; j < k; j++) {
      support += matrix[c]![j]!;
      predicted += matrix[j]![c]!;
    }
    // Tie credit makes the matrix fractional; its row and column sums are whole up to rounding.
    support = Math.round(support * 1e9) / 1e9;
    predicted = Math.round(predicted * 1e9) / 1e9;
    const precision = predicted === 0 ? NaN : tp / predicted;
    const recall = support === 0 ? NaN : tp / support;
    let f1: number;
    if (support === 0 && predicted === 0) f1 = NaN;
    else if (tp === 0) f1 = 0;
    else f1 = (2 * precision * recall) / (precision + recall);
    scores.push({ precision, recall, f1, support, predicted });
  }
  return scores;
}
