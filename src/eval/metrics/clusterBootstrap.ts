// Percentile bootstrap confidence intervals that resample whole clusters (programs).

import { quantile } from "simple-statistics";
import { seededRandom } from "./seededRandom.js";

export interface BootstrapOptions {
  /** Number of resamples (default 2000). */
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
 * Cluster bootstrap of a mean difference: mean(a) − mean(b) over items, where items
 * come in clusters (in schedlab: samples grouped by program). Each resample draws
 * as many clusters as there are, with replacement, and keeps all their items; the
 * interval is the percentile interval of the resampled differences. Resampling
 * programs rather than samples is the honest choice: samples of one program share
 * its code and its runs, so they are not independent, and resampling them one by
 * one would give intervals that are too narrow.
 *
 * Pass b = all zeros to bootstrap a plain mean (e.g. one predictor's accuracy).
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
  if (groups.length !== a.length || a.length !== b.length) throw new RangeError("clusterBootstrap: arrays differ in length");
  const resamples = options.resamples ?? 2000;
  const confidence = options.confidence ?? 0.95;
  const index = new Map<string, number>();
  const sumA: number[] = [];
  const sumB: number[] = [];
  const size: number[] = [];
  for (let i = 0; i < groups.length; i++) {
    let g = index.get(groups[i]!);
    if (g === undefined) {
      g = index.size;
      index.set(groups[i]!, g);
      sumA.push(0);
      sumB.push(0);
      size.push(0);
    }
    sumA[g]! += a[i]!;
    sumB[g]! += b[i]!;
    size[g]! += 1;
  }
  const clusters = size.length;
  if (clusters === 0) return { estimate: NaN, lower: NaN, upper: NaN, confidence, resamples: 0, clusters };
  const total = (xs: number[]): number => xs.reduce((s, x) => s + x, 0);
  const estimate = (total(sumA) - total(sumB)) / total(size);
  const random = seededRandom(options.seed ?? 1);
  const differences = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    let da = 0;
    let db = 0;
    let n = 0;
    for (let j = 0; j < clusters; j++) {
      const g = Math.floor(random() * clusters);
      da += sumA[g]!;
      db += sumB[g]!;
      n += size[g]!;
    }
    differences[r] = (da - db) / n;
  }
  const alpha = (1 - confidence) / 2;
  const [lower, upper] = resamples === 0 ? [NaN, NaN] : quantile(differences, [alpha, 1 - alpha]);
  return { estimate, lower: lower!, upper: upper!, confidence, resamples, clusters };
}
