// Ranks with ties (midranks), computed once in O(n log n) on typed arrays, and the tie groups
// they come from: what the rank correlation and its resampling reuse instead of re-sorting.

/**
 * The ranking of a list of values. Items are the indices of the values; tied values (===)
 * form one tie group, numbered 0, 1, … in increasing value.
 */
export interface Ranking {
  /** 0-based midrank of each item: tied items share the mean of the 0-based positions they span. */
  readonly ranks: Float64Array;
  /** Tie group of each item. */
  readonly groupOf: Int32Array;
  /** Number of tie groups (the number of distinct values). */
  readonly groups: number;
}

/**
 * The items' indices in increasing value (an index sort; the order inside a tie is
 * unspecified). Values must not be NaN.
 *
 * @example Array.from(rankOrder([3, 1, 2])) // => [1, 2, 0]
 */
export function rankOrder(values: ArrayLike<number>): Uint32Array {
  const copy = Float64Array.from(values);
  const order = new Uint32Array(copy.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  return order.sort((i, j) => copy[i]! - copy[j]!);
}

/**
 * Ranks `values` once: one index sort, then one pass over tie runs. The 0-based midranks are
 * those of simple-statistics' sampleRankCorrelation ((first + last position) / 2), so a
 * correlation of these ranks is bit-identical to it.
 *
 * @example Array.from(rankValues([3, 1, 3, 2]).ranks) // => [2.5, 0, 2.5, 1]
 */
export function rankValues(values: ArrayLike<number>): Ranking {
  const order = rankOrder(values);
  const ranks = new Float64Array(order.length);
  const groupOf = new Int32Array(order.length);
  let groups = 0;
  for (let start = 0; start < order.length; groups++) {
    let stop = start + 1;
    while (stop < order.length && values[order[stop]!] === values[order[start]!]) stop++;
    const rank = (start + stop - 1) / 2;
    for (let k = start; k < stop; k++) {
      ranks[order[k]!] = rank;
      groupOf[order[k]!] = groups;
    }
    start = stop;
  }
  return { ranks, groupOf, groups };
}

/**
 * Midranks (1-based) of `values`: tied values share the mean of their ranks.
 *
 * @example Array.from(midranks([3, 1, 3, 2])) // => [3.5, 1, 3.5, 2]
 */
export function midranks(values: ArrayLike<number>): Float64Array {
  const { ranks } = rankValues(values);
  for (let i = 0; i < ranks.length; i++) ranks[i]! += 1;
  return ranks;
}
