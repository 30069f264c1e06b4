// Percentile bootstrap confidence intervals that resample whole clusters (programs):
// one resampling loop (clusterBootstrapDraws) and the statistics built on it.

import { quantile } from "simple-statistics";
import { seededRandom } from "../random.js";

/** Resamples of every bootstrap, permutation and sign-flip test unless told otherwise. */
export const DEFAULT_RESAMPLES = 2000;

export interface BootstrapOptions {
  /** Number of resamples (default DEFAULT_RESAMPLES). */
  readonly resamples?: number;
  /** PRNG seed (default 1); the same seed gives the same interval. */
  readonly seed?: number;
  /** Coverage of the interval (default 0.95). */
  readonly confidence?: number;
}

export interface BootstrapInterval {
  /** The statistic on the full data. */
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
  readonly confidence: number;
  readonly resamples: number;
  /** Number of clusters resampled; with 1 cluster the interval collapses to the estimate. */
  readonly clusters: number;
}

/**
 * A statistic of one resample given as the clusters drawn: `drawn` holds cluster
 * indices in [0, clusters), as many as there are clusters, repeats allowed. The full
 * data is the draw [0, 1, …, clusters − 1].
 */
export type ClusterStatistic = (drawn: readonly number[]) => number;

/** Items grouped by cluster key, clusters numbered in order of first appearance. */
export interface ClusterIndex {
  /** Cluster number of each item. */
  readonly clusterOf: Int32Array;
  /** Number of items in each cluster. */
  readonly sizes: readonly number[];
}

/** Numbers the clusters of `groups` in order of first appearance (one pass, no per-cluster lists: this runs on every sample). */
export function clusterIndex(groups: readonly string[]): ClusterIndex {
  const number = new Map<string, number>();
  const clusterOf = new Int32Array(groups.length);
  const sizes: number[] = [];
  for (let i = 0; i < groups.length; i++) {
    let g = number.get(groups[i]!);
    if (g === undefined) {
      g = sizes.length;
      number.set(groups[i]!, g);
      sizes.push(0);
    }
    clusterOf[i] = g;
    sizes[g]! += 1;
  }
  return { clusterOf, sizes };
}

/**
 * The one resampling loop behind every cluster bootstrap here. Each resample draws
 * `clusters` cluster indices uniformly with replacement from a seeded PRNG (mulberry32)
 * and evaluates `statistic` on the draw; the interval is the percentile interval of the
 * resampled values, the estimate the statistic of the full data. Invariants: the same
 * seed and cluster count give the same draws whatever the statistic (so intervals of
 * different statistics share their resamples); with one cluster every draw is the full
 * data and the interval collapses to the estimate; zero clusters give NaN.
 *
 * Resampling programs rather than samples is the honest choice: samples of one program
 * share its code and its runs, so they are not independent, and resampling them one by
 * one would give intervals that are too narrow.
 *
 * @param clusters number of clusters
 * @param statistic the statistic of a draw (see ClusterStatistic); should be finite for every draw
 * @example clusterBootstrapDraws(2, (d) => d.filter((g) => g === 0).length / d.length).estimate // => 0.5
 */
export function clusterBootstrapDraws(
  clusters: number,
  statistic: ClusterStatistic,
  options: BootstrapOptions = {},
): BootstrapInterval {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const confidence = options.confidence ?? 0.95;
  if (clusters === 0) return { estimate: NaN, lower: NaN, upper: NaN, confidence, resamples: 0, clusters };
  const estimate = statistic(Array.from({ length: clusters }, (_, g) => g));
  const random = seededRandom(options.seed ?? 1);
  const values = new Array<number>(resamples);
  const drawn = new Array<number>(clusters).fill(0);
  for (let r = 0; r < resamples; r++) {
    for (let j = 0; j < clusters; j++) drawn[j] = Math.floor(random() * clusters);
    values[r] = statistic(drawn);
  }
  const alpha = (1 - confidence) / 2;
  const [lower, upper] = resamples === 0 ? [NaN, NaN] : quantile(values, [alpha, 1 - alpha]);
  return { estimate, lower: lower!, upper: upper!, confidence, resamples, clusters };
}

/**
 * Cluster bootstrap of any statistic of the items, e.g. a ratio that is not a mean.
 * Each resample passes the item indices of the drawn clusters (a cluster drawn twice
 * appears twice) to `statistic`; the estimate passes every item once, grouped by
 * cluster. This costs O(items) per resample: for a statistic that decomposes into
 * per-cluster sums, precompute the sums and use clusterBootstrapDraws instead (as
 * clusterBootstrapMeanDifference and expectedCalibrationErrorInterval do).
 *
 * @param groups cluster key per item (in schedlab: the program of each sample)
 * @param statistic the statistic of a multiset of item indices
 * @example clusterBootstrapStatistic(["p", "p", "q"], (ix) => ix.length).estimate // => 3
 */
export function clusterBootstrapStatistic(
  groups: readonly string[],
  statistic: (indices: readonly number[]) => number,
  options: BootstrapOptions = {},
): BootstrapInterval {
  const { clusterOf, sizes } = clusterIndex(groups);
  const items: number[][] = sizes.map(() => []);
  clusterOf.forEach((g, i) => items[g]!.push(i));
  return clusterBootstrapDraws(items.length, (drawn) => statistic(drawn.flatMap((g) => items[g]!)), options);
}

/**
 * Cluster bootstrap of a mean difference: mean(a) − mean(b) over items, where items
 * come in clusters (in schedlab: samples grouped by program). Per-cluster sums are
 * precomputed, so a resample costs O(clusters). Pass b = all zeros to bootstrap a
 * plain mean (e.g. one predictor's accuracy).
 *
 * @param groups cluster key per item
 * @param a value per item (e.g. 1 if predictor A was right)
 * @param b value per item (e.g. 1 if predictor B was right)
 * @example clusterBootstrapMeanDifference(["p", "p", "q"], [1, 1, 0], [0, 0, 0]).estimate // => 2 / 3
 */
export function clusterBootstrapMeanDifference(
  groups: readonly string[],
  a: readonly number[],
  b: readonly number[],
  options: BootstrapOptions = {},
): BootstrapInterval {
  if (groups.length !== a.length || a.length !== b.length)
    throw new RangeError("clusterBootstrap: arrays differ in length");
  const { clusterOf, sizes } = clusterIndex(groups);
  const sumA = new Float64Array(sizes.length);
  const sumB = new Float64Array(sizes.length);
  for (let i = 0; i < clusterOf.length; i++) {
    sumA[clusterOf[i]!]! += a[i]!;
    sumB[clusterOf[i]!]! += b[i]!;
  }
  return clusterBootstrapMeanDifferenceOfSums(sizes, sumA, sumB, options);
}

/**
 * The cluster bootstrap of a mean difference from its per-cluster sufficient statistics:
 * each cluster's item count and sums of a and of b (summed in item order). A resample costs
 * O(clusters) and never touches the items; clusterBootstrapMeanDifference is this after one
 * pass over the items, so both give the same interval for the same seed.
 *
 * @param sizes items per cluster
 * @param sumA Σ a over each cluster's items
 * @param sumB Σ b over each cluster's items
 * @example clusterBootstrapMeanDifferenceOfSums([2, 1], [2, 0], [0, 0]).estimate // => 2 / 3
 */
export function clusterBootstrapMeanDifferenceOfSums(
  sizes: ArrayLike<number>,
  sumA: ArrayLike<number>,
  sumB: ArrayLike<number>,
  options: BootstrapOptions = {},
): BootstrapInterval {
  if (sizes.length !== sumA.length || sumA.length !== sumB.length)
    throw new RangeError("clusterBootstrap: arrays differ in length");
  // Sums in draw order, so results are bit-identical to the former dedicated loop.
  const meanDifference: ClusterStatistic = (drawn) => {
    let da = 0;
    let db = 0;
    let n = 0;
    for (const g of drawn) {
      da += sumA[g]!;
      db += sumB[g]!;
      n += sizes[g]!;
    }
    return (da - db) / n;
  };
  return clusterBootstrapDraws(sizes.length, meanDifference, options);
}
