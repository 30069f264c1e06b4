// The multi-class Brier score against observed labels.

/**
 * Mean over samples of Σ_k (q_k − y_k)², where y is the one-hot vector of the
 * observed label. Summed over all classes (not divided by their number), so it
 * ranges from 0 (certain and right) to 2 (certain and wrong).
 *
 * @param probabilities predicted distribution per sample
 * @param observed observed class index per sample
 * @returns Brier score in [0, 2]; NaN for no samples
 * @example brierScore([[0.75, 0.25]], [0]) // => 0.0625 + 0.0625 = 0.125
 */
export function brierScore(probabilities: readonly (readonly number[])[], observed: readonly number[]): number {
  if (probabilities.length !== observed.length) throw new RangeError("brierScore: arrays differ in length");
  if (probabilities.length === 0) return NaN;
  let total = 0;
  for (let i = 0; i < probabilities.length; i++) {
    const q = probabilities[i]!;
    for (let k = 0; k < q.length; k++) {
      const y = k === observed[i] ? 1 : 0;
      total += (q[k]! - y) ** 2;
    }
  }
  return total / probabilities.length;
}
