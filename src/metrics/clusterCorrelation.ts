// Spearman correlation over clustered items (states grouped by program family), with a
// p-value and an interval that respect the clusters: states of one family are not
// independent, so the textbook t-test p-value is far too small. Values are ranked once;
// each resample re-ranks by counting, never by sorting (O(items) per resample).

import { DEFAULT_RESAMPLES, clusterBootstrapDraws, clusterIndex, type BootstrapInterval } from "./clusterBootstrap.js";
import { isConstantRange } from "./correlation.js";
import { rankValues, type Ranking } from "./midranks.js";
import { seededRandom } from "../random.js";

export interface ClusterCorrelation {
  /** Spearman's ρ over all items (NaN when undefined, see spearman). */
  readonly rho: number;
  /**
   * Two-sided p-value of a within-cluster permutation test: x is shuffled among the items of
   * each cluster (between-cluster structure kept), p = (1 + #{|ρ*| ≥ |ρ|}) / (1 + resamples).
   */
  readonly pValue: number;
  /** Cluster bootstrap percentile interval of ρ (clusters resampled with replacement). */
  readonly interval: BootstrapInterval;
  readonly clusters: number;
  readonly n: number;
}

/** Items laid out cluster by cluster (increasing item index inside a cluster), with each cluster's value range. */
interface ClusterLayout {
  readonly offsets: Int32Array;
  readonly members: Int32Array;
  readonly minX: Float64Array;
  readonly maxX: Float64Array;
  readonly minY: Float64Array;
  readonly maxY: Float64Array;
}

function clusterLayout(
  clusterOf: Int32Array,
  sizes: readonly number[],
  x: ArrayLike<number>,
  y: ArrayLike<number>,
): ClusterLayout {
  const clusters = sizes.length;
  const offsets = new Int32Array(clusters + 1);
  for (let g = 0; g < clusters; g++) offsets[g + 1] = offsets[g]! + sizes[g]!;
  const cursor = offsets.slice(0, clusters);
  const members = new Int32Array(clusterOf.length);
  const minX = new Float64Array(clusters).fill(Infinity);
  const maxX = new Float64Array(clusters).fill(-Infinity);
  const minY = new Float64Array(clusters).fill(Infinity);
  const maxY = new Float64Array(clusters).fill(-Infinity);
  for (let i = 0; i < clusterOf.length; i++) {
    const g = clusterOf[i]!;
    members[cursor[g]!++] = i;
    if (x[i]! < minX[g]!) minX[g] = x[i]!;
    if (x[i]! > maxX[g]!) maxX[g] = x[i]!;
    if (y[i]! < minY[g]!) minY[g] = y[i]!;
    if (y[i]! > maxY[g]!) maxY[g] = y[i]!;
  }
  return { offsets, members, minX, maxX, minY, maxY };
}

/**
 * Spearman's ρ of the items of the drawn clusters (a cluster drawn twice counts twice), as
 * `spearman` computes it on those items concatenated in draw order, without sorting them.
 * Every item of a tie group has the same value, so an item's midrank among the drawn items
 * is the drawn weight of the lower groups plus (its group's drawn weight − 1) / 2: one pass
 * over the drawn items weighs the groups, one pass over the groups ranks them, and the
 * correlation sums run over the drawn items in draw order. The arithmetic is that of
 * simple-statistics' sampleCorrelation on the same ranks (their means are exactly (W − 1)/2),
 * so the value is bit-identical to re-ranking the resample.
 */
function resampledSpearman(
  layout: ClusterLayout,
  sizes: readonly number[],
  rx: Ranking,
  ry: Ranking,
): (drawn: readonly number[]) => number {
  const { offsets, members } = layout;
  const multiplicity = new Int32Array(sizes.length);
  const weightX = new Float64Array(rx.groups);
  const weightY = new Float64Array(ry.groups);
  const rankX = new Float64Array(rx.groups);
  const rankY = new Float64Array(ry.groups);
  // Tie groups in cluster layout order, so the passes over the drawn items read memory in sequence.
  const groupX = Int32Array.from(members, (i) => rx.groupOf[i]!);
  const groupY = Int32Array.from(members, (i) => ry.groupOf[i]!);
  const rankGroups = (weight: Float64Array, rank: Float64Array): void => {
    let below = 0;
    for (let g = 0; g < weight.length; g++) {
      const w = weight[g]!;
      if (w === 0) continue;
      rank[g] = (below + (below + w - 1)) / 2;
      below += w;
    }
  };
  return (drawn) => {
    multiplicity.fill(0);
    let total = 0;
    let minX = Infinity;
    let maxX = -Infinity;
    let minY = Infinity;
    let maxY = -Infinity;
    for (const g of drawn) {
      multiplicity[g]! += 1;
      total += sizes[g]!;
      if (layout.minX[g]! < minX) minX = layout.minX[g]!;
      if (layout.maxX[g]! > maxX) maxX = layout.maxX[g]!;
      if (layout.minY[g]! < minY) minY = layout.minY[g]!;
      if (layout.maxY[g]! > maxY) maxY = layout.maxY[g]!;
    }
    // spearman's rule: fewer than 3 items, or a constant side, has no correlation.
    if (total < 3 || isConstantRange(minX, maxX) || isConstantRange(minY, maxY)) return NaN;
    weightX.fill(0);
    weightY.fill(0);
    for (let g = 0; g < multiplicity.length; g++) {
      const m = multiplicity[g]!;
      if (m === 0) continue;
      for (let k = offsets[g]!; k < offsets[g + 1]!; k++) {
        weightX[groupX[k]!]! += m;
        weightY[groupY[k]!]! += m;
      }
    }
    rankGroups(weightX, rankX);
    rankGroups(weightY, rankY);
    const mean = (total - 1) / 2;
    let covariance = 0;
    let squaresX = 0;
    let squaresY = 0;
    for (const g of drawn) {
      for (let k = offsets[g]!; k < offsets[g + 1]!; k++) {
        const dx = rankX[groupX[k]!]! - mean;
        const dy = rankY[groupY[k]!]! - mean;
        covariance += dx * dy;
        squaresX += dx * dx;
        squaresY += dy * dy;
      }
    }
    const r = covariance / (total - 1) / Math.sqrt(squaresX / (total - 1)) / Math.sqrt(squaresY / (total - 1));
    return Number.isFinite(r) ? r : NaN;
  };
}

/** Sum of `values` in order, and the sum of squared deviations from its mean: sampleCorrelation's arithmetic. */
function meanAndSquares(values: Float64Array): { mean: number; squares: number } {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  const mean = sum / values.length;
  let squares = 0;
  for (let i = 0; i < values.length; i++) squares += (values[i]! - mean) * (values[i]! - mean);
  return { mean, squares };
}

/**
 * p-value of the within-cluster permutation test of ρ. Each permutation shuffles the ranks of
 * x inside each cluster (Fisher–Yates from the original order, clusters in order, the draws of
 * the former implementation) and correlates them with the ranks of y in item order. The sum of
 * the ranks is a sum of half-integers, exact in any order, so the means are fixed and one
 * permutation costs one pass.
 */
function permutationPValue(
  layout: ClusterLayout,
  rx: Ranking,
  ry: Ranking,
  rho: number,
  resamples: number,
  seed: number,
): number {
  const n = rx.ranks.length;
  const { offsets, members } = layout;
  // 1-based ranks, as the former implementation permuted (its means and deviations shift by exactly 1).
  const x1 = rx.ranks.map((r) => r + 1);
  const y1 = ry.ranks.map((r) => r + 1);
  const { mean: meanX } = meanAndSquares(x1);
  const { mean: meanY, squares: squaresY } = meanAndSquares(y1);
  const deviationY = y1.map((v) => v - meanY);
  const sdY = Math.sqrt(squaresY / (n - 1));
  const base = new Float64Array(n);
  for (let k = 0; k < n; k++) base[k] = x1[members[k]!]!;
  const values = new Float64Array(n);
  const permuted = new Float64Array(n);
  const random = seededRandom(seed);
  const threshold = Math.abs(rho) * (1 - 1e-12);
  let hits = 0;
  for (let r = 0; r < resamples; r++) {
    values.set(base);
    for (let g = 0; g + 1 < offsets.length; g++) {
      const start = offsets[g]!;
      for (let k = offsets[g + 1]! - start - 1; k > 0; k--) {
        const j = Math.floor(random() * (k + 1));
        const t = values[start + k]!;
        values[start + k] = values[start + j]!;
        values[start + j] = t;
      }
    }
    for (let k = 0; k < n; k++) permuted[members[k]!] = values[k]!;
    let covariance = 0;
    let squaresX = 0;
    for (let i = 0; i < n; i++) {
      const dx = permuted[i]! - meanX;
      covariance += dx * deviationY[i]!;
      squaresX += dx * dx;
    }
    const correlation = covariance / (n - 1) / Math.sqrt(squaresX / (n - 1)) / sdY;
    if (Math.abs(correlation) >= threshold) hits++;
  }
  return (1 + hits) / (1 + resamples);
}

/**
 * Spearman's ρ between x and y with a within-cluster permutation p-value and a cluster
 * bootstrap interval, both from `resamples` seeded draws. Permuting within clusters tests
 * whether x and y move together inside families, which is what a predictor's entropy must do
 * to track real nondeterminism; resampling whole clusters gives the interval.
 *
 * Cost: one ranking of x and of y (O(n log n)), then O(n) per resample and per permutation,
 * with no allocation in the loops. The results are bit-identical to recomputing `spearman` on
 * every resample and `sampleCorrelation` on every permutation (test/metrics/clusterCorrelation.test.ts
 * checks this against a copy of that implementation).
 *
 * @param groups cluster key per item
 * @example clusterSpearman(["a", "a", "b", "b"], [1, 2, 3, 4], [1, 2, 3, 4]).rho // => 1
 */
export function clusterSpearman(
  groups: readonly string[],
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  options: { readonly resamples?: number; readonly seed?: number } = {},
): ClusterCorrelation {
  if (groups.length !== x.length || x.length !== y.length)
    throw new RangeError("clusterSpearman: arrays differ in length");
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? 1;
  const n = x.length;
  const { clusterOf, sizes } = clusterIndex(groups);
  const layout = clusterLayout(clusterOf, sizes, x, y);
  const rx = rankValues(x);
  const ry = rankValues(y);
  const statistic = resampledSpearman(layout, sizes, rx, ry);
  const interval = clusterBootstrapDraws(sizes.length, statistic, { resamples, seed });
  const rho = n === 0 ? NaN : spearmanOfRanks(rx.ranks, ry.ranks, x, y);
  if (!Number.isFinite(rho)) return { rho, pValue: NaN, interval, clusters: sizes.length, n };
  const pValue = permutationPValue(layout, rx, ry, rho, resamples, seed);
  return { rho, pValue, interval, clusters: sizes.length, n };
}

/**
 * Spearman's ρ from 0-based midranks (rankValues), bit-identical to `spearman(x, y).r`: NaN
 * for fewer than 3 items or a constant side, else sampleCorrelation's arithmetic on the ranks.
 *
 * @example spearmanOfRanks(rankValues([1, 2, 3]).ranks, rankValues([3, 2, 1]).ranks, [1, 2, 3], [3, 2, 1]) // => -1
 */
export function spearmanOfRanks(
  rx: Float64Array,
  ry: Float64Array,
  x: ArrayLike<number>,
  y: ArrayLike<number>,
): number {
  const n = rx.length;
  if (n < 3) return NaN;
  let minX = x[0]!;
  let maxX = x[0]!;
  let minY = y[0]!;
  let maxY = y[0]!;
  for (let i = 1; i < n; i++) {
    if (x[i]! < minX) minX = x[i]!;
    if (x[i]! > maxX) maxX = x[i]!;
    if (y[i]! < minY) minY = y[i]!;
    if (y[i]! > maxY) maxY = y[i]!;
  }
  if (isConstantRange(minX, maxX) || isConstantRange(minY, maxY)) return NaN;
  const { mean: meanX, squares: squaresX } = meanAndSquares(rx);
  const { mean: meanY, squares: squaresY } = meanAndSquares(ry);
  let covariance = 0;
  for (let i = 0; i < n; i++) covariance += (rx[i]! - meanX) * (ry[i]! - meanY);
  const r = covariance / (n - 1) / Math.sqrt(squaresX / (n - 1)) / Math.sqrt(squaresY / (n - 1));
  return Number.isFinite(r) ? r : NaN;
}
