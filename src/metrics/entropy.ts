// Shannon entropy of a distribution, in bits.

/**
 * −Σ_k p_k log₂ p_k, with 0 · log 0 = 0. For six events the maximum is log₂ 6 ≈ 2.585.
 *
 * @param p a distribution (sums to 1)
 * @returns entropy in bits, ≥ 0
 * @example entropy([0.5, 0.5, 0]) // => 1
 * @example entropy([0.25, 0.25, 0.25, 0.25]) // => 2
 */
export function entropy(p: readonly number[]): number {
  let total = 0;
  for (const pk of p) if (pk > 0) total -= pk * Math.log2(pk);
  // Rounding can leave −0 or a tiny negative for a point mass.
  return total <= 0 ? 0 : total;
}
