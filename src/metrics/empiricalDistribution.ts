// p̂: the empirical distribution of next events, from raw counts.

/**
 * Counts divided by their total.
 *
 * @param counts non-negative counts
 * @returns a distribution summing to 1; all zeros when the counts are all zero
 * @example empiricalDistribution([3, 1, 0]) // => [0.75, 0.25, 0]
 */
export function empiricalDistribution(counts: readonly number[]): number[] {
  let total = 0;
  for (const c of counts) total += c;
  return counts.map((c) => (total === 0 ? 0 : c / total));
}
