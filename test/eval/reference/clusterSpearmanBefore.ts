// REFERENCE ONLY: the clusterSpearman and midranks of src/metrics/clusterCorrelation.ts
// before issue 25 (re-ranking every resample), kept verbatim so tests can check the linear-time
// version returns bit-identical results. Not used by src/.

import { sampleCorrelation } from "simple-statistics";
import {
  DEFAULT_RESAMPLES,
  clusterBootstrapStatistic,
  clusterIndex,
  type BootstrapInterval,
} from "../../../src/metrics/clusterBootstrap.js";
import { spearman } from "../../../src/metrics/correlation.js";
import { seededRandom } from "../../../src/random.js";

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

/** Midranks (1-based) of `xs`: tied values share the mean of their ranks. */
export function midranksBefore(xs: readonly number[]): Float64Array {
  const order = xs.map((_, i) => i).sort((i, j) => xs[i]! - xs[j]!);
  const ranks = new Float64Array(xs.length);
  for (let start = 0; start < order.length;) {
    let stop = start + 1;
    while (stop < order.length && xs[order[stop]!] === xs[order[start]!]) stop++;
    const rank = (start + stop + 1) / 2;
    for (let k = start; k < stop; k++) ranks[order[k]!] = rank;
    start = stop;
  }
  return ranks;
}

/**
 * Spearman's ρ between x and y with a within-cluster permutation p-value and a cluster
 * bootstrap interval, both from `resamples` seeded draws. Permuting within clusters tests
 * whether x and y move together inside families, which is what a predictor's entropy must do
 * to track real nondeterminism; resampling whole clusters gives the interval.
 *
 * @param groups cluster key per item
 * @example clusterSpearman(["a", "a", "b", "b"], [1, 2, 3, 4], [1, 2, 3, 4]).rho // => 1
 */
export function clusterSpearmanBefore(
  groups: readonly string[],
  x: readonly number[],
  y: readonly number[],
  options: { readonly resamples?: number; readonly seed?: number } = {},
): ClusterCorrelation {
  if (groups.length !== x.length || x.length !== y.length)
    throw new RangeError("clusterSpearman: arrays differ in length");
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? 1;
  const rho = spearman(x, y).r;
  const { clusterOf, sizes } = clusterIndex(groups);
  const interval = clusterBootstrapStatistic(
    groups,
    (indices) =>
      spearman(
        indices.map((i) => x[i]!),
        indices.map((i) => y[i]!),
      ).r,
    { resamples, seed },
  );
  if (!Number.isFinite(rho)) return { rho, pValue: NaN, interval, clusters: sizes.length, n: x.length };
  const rx = midranksBefore(x);
  const ry = Array.from(midranksBefore(y));
  const members: number[][] = sizes.map(() => []);
  clusterOf.forEach((g, i) => members[g]!.push(i));
  const random = seededRandom(seed);
  const permuted = new Array<number>(x.length);
  let hits = 0;
  for (let r = 0; r < resamples; r++) {
    for (const items of members) {
      // Fisher–Yates over the cluster's ranks, written into the cluster's own positions.
      const values = items.map((i) => rx[i]!);
      for (let k = values.length - 1; k > 0; k--) {
        const j = Math.floor(random() * (k + 1));
        const t = values[k]!;
        values[k] = values[j]!;
        values[j] = t;
      }
      items.forEach((i, k) => (permuted[i] = values[k]!));
    }
    if (Math.abs(sampleCorrelation(permuted, ry)) >= Math.abs(rho) * (1 - 1e-12)) hits++;
  }
  return { rho, pValue: (1 + hits) / (1 + resamples), interval, clusters: sizes.length, n: x.length };
}
