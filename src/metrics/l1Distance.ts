// The mean absolute difference between two distributions, Σ|q − p̂| / K.

/**
 * Σ_k |q_k − p_k| / K, with K the number of classes (6 for schedlab's events),
 * as docs/metrics.md defines it. Note this is total-variation distance × 2 / K, so it
 * ranges over [0, 2/K].
 *
 * @param p empirical distribution
 * @param q predicted distribution (same length)
 * @example l1Distance([1, 0, 0], [0.5, 0.5, 0]) // => 1 / 3
 */
export function l1Distance(p: readonly number[], q: readonly number[]): number {
  if (p.length !== q.length) throw new RangeError("l1Distance: vectors differ in length");
  if (p.length === 0) return NaN;
  let total = 0;
  for (let k = 0; k < p.length; k++) total += Math.abs(q[k]! - p[k]!);
  return total / p.length;
}
