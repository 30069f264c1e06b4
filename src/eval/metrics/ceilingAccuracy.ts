// The ceiling: the sample-level accuracy of always predicting the mode of p̂.

/**
 * Σ_states max(counts) / Σ_states Σ counts. No predictor that gives one label per
 * state can beat this on the samples that built the counts: within a state the
 * best single guess is the most frequent next event.
 *
 * @param counts empirical next-event counts per state
 * @returns ceiling in [0, 1]; NaN when there are no samples
 * @example ceilingAccuracy([[3, 1], [0, 2]]) // => 5 / 6
 */
export function ceilingAccuracy(counts: readonly (readonly number[])[]): number {
  let top = 0;
  let total = 0;
  for (const row of counts) {
    top += row.length === 0 ? 0 : Math.max(...row);
    for (const c of row) total += c;
  }
  return total === 0 ? NaN : top / total;
}
