// A paired test whose unit is the cluster (program family): samples within a cluster share
// code and runs, so they are not independent, and a sample-level test (McNemar) overstates
// the evidence by the number of samples per cluster.

import { DEFAULT_RESAMPLES, clusterIndex } from "./clusterBootstrap.js";
import { seededRandom } from "../random.js";

/** Up to this many clusters every sign pattern is enumerated (2^16 = 65 536). */
export const SIGN_FLIP_EXACT_UP_TO = 16;

export interface SignFlipResult {
  /** mean(a − b) over items. */
  readonly difference: number;
  /** Two-sided p-value: the share of sign patterns whose |difference| is at least the observed one. */
  readonly pValue: number;
  readonly clusters: number;
  /** "exact": every pattern enumerated; "monte-carlo": `resamples` random patterns, p = (1 + hits) / (1 + resamples). */
  readonly method: "exact" | "monte-carlo";
  readonly resamples: number;
}

/**
 * Cluster sign-flip permutation test of H0 "A and B are equally good" on paired scores: under
 * H0 each cluster's summed difference d_c = Σ (a_i − b_i) is as likely to be −d_c, so the
 * statistic T = Σ_c d_c / N is compared with Σ_c ±d_c / N over sign patterns. With at most
 * SIGN_FLIP_EXACT_UP_TO clusters all 2^C patterns are enumerated; otherwise `resamples`
 * seeded random patterns are drawn. No difference anywhere gives p = 1.
 *
 * @param groups cluster key per item (the family of each sample)
 * @param a score of A per item (tie credit in [0, 1])
 * @param b score of B per item
 * @example clusterSignFlipTest(["p", "q"], [1, 1], [0, 0]).pValue // => 0.5 (patterns ++ and −− reach |T| = 1)
 */
export function clusterSignFlipTest(
  groups: readonly string[],
  a: readonly number[],
  b: readonly number[],
  options: { readonly resamples?: number; readonly seed?: number } = {},
): SignFlipResult {
  if (groups.length !== a.length || a.length !== b.length)
    throw new RangeError("clusterSignFlipTest: arrays differ in length");
  const { clusterOf, sizes } = clusterIndex(groups);
  const d = new Float64Array(sizes.length);
  for (let i = 0; i < clusterOf.length; i++) d[clusterOf[i]!]! += a[i]! - b[i]!;
  return clusterSignFlipTestOfSums(d, groups.length, options);
}

/**
 * clusterSignFlipTest from its sufficient statistics: each cluster's summed difference
 * d_c = Σ (a_i − b_i) (summed in item order) and the number of items. The test never reads
 * the items, so clusterSignFlipTest is this after one pass over them, and both give the same
 * p-value for the same seed.
 *
 * @param differences d_c per cluster, clusters numbered as clusterIndex numbers them
 * @param items the number of items N
 * @example clusterSignFlipTestOfSums([1, 1], 2).pValue // => 0.5
 */
export function clusterSignFlipTestOfSums(
  differences: ArrayLike<number>,
  items: number,
  options: { readonly resamples?: number; readonly seed?: number } = {},
): SignFlipResult {
  const d = differences;
  const n = items;
  const clusters = d.length;
  if (n === 0) return { difference: NaN, pValue: NaN, clusters, method: "exact", resamples: 0 };
  let sum = 0;
  let none = true;
  for (let c = 0; c < clusters; c++) {
    sum += d[c]!;
    if (d[c] !== 0) none = false;
  }
  const observed = sum / n;
  // A relative tolerance, so patterns equal to the observed statistic up to rounding count as reaching it.
  const threshold = Math.abs(observed) * (1 - 1e-12) - 1e-15;
  if (none) return { difference: observed, pValue: 1, clusters, method: "exact", resamples: 0 };
  if (clusters <= SIGN_FLIP_EXACT_UP_TO) {
    let hits = 0;
    const patterns = 2 ** clusters;
    for (let mask = 0; mask < patterns; mask++) {
      let t = 0;
      for (let c = 0; c < clusters; c++) t += (mask >> c) & 1 ? -d[c]! : d[c]!;
      if (Math.abs(t / n) >= threshold) hits++;
    }
    return { difference: observed, pValue: hits / patterns, clusters, method: "exact", resamples: patterns };
  }
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const random = seededRandom(options.seed ?? 1);
  let hits = 0;
  for (let r = 0; r < resamples; r++) {
    let t = 0;
    for (let c = 0; c < clusters; c++) t += random() < 0.5 ? -d[c]! : d[c]!;
    if (Math.abs(t / n) >= threshold) hits++;
  }
  return { difference: observed, pValue: (1 + hits) / (1 + resamples), clusters, method: "monte-carlo", resamples };
}
