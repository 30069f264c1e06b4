import { describe, expect, it } from "vitest";
import { clusterSpearman, spearmanOfRanks } from "../../src/metrics/clusterCorrelation.js";
import { spearman } from "../../src/metrics/correlation.js";
import { midranks, rankValues } from "../../src/metrics/midranks.js";
import { seededRandom } from "../../src/random.js";
import { clusterSpearmanBefore, midranksBefore } from "../eval/reference/clusterSpearmanBefore.js";

describe("clusterSpearman", () => {
  it("ranks ties at their mean rank", () => {
    expect(Array.from(midranks([3, 1, 3, 2]))).toEqual([3.5, 1, 3.5, 2]);
  });
  it("is Spearman's ρ, with a small permutation p-value when x and y move together within clusters", () => {
    const groups = Array.from({ length: 60 }, (_, i) => `c${i % 6}`);
    const x = groups.map((_, i) => i);
    const y = x.map((v) => v * v);
    const r = clusterSpearman(groups, x, y, { resamples: 499, seed: 3 });
    expect(r.rho).toBeCloseTo(1, 12);
    expect(r.pValue).toBeCloseTo(1 / 500, 12);
    expect(r.clusters).toBe(6);
    expect(r.interval.lower).toBeLessThanOrEqual(r.rho + 1e-12);
  });
  it("does not call a between-cluster difference a within-cluster association", () => {
    // Two clusters: x and y are both high in one and low in the other, but unrelated inside
    // each. The sample-level ρ is large; permuting within clusters keeps it large, so p is not small.
    const groups = [...Array(20).fill("lo"), ...Array(20).fill("hi")] as string[];
    const x = groups.map((g, i) => (g === "hi" ? 100 : 0) + ((i * 7) % 11));
    const y = groups.map((g, i) => (g === "hi" ? 100 : 0) + ((i * 5) % 13));
    const r = clusterSpearman(groups, x, y, { resamples: 499, seed: 1 });
    expect(r.rho).toBeGreaterThan(0.7);
    expect(r.pValue).toBeGreaterThan(0.05);
  });
  it("is NaN for a constant side", () => {
    const r = clusterSpearman(["a", "a", "b"], [1, 1, 1], [1, 2, 3], { resamples: 10 });
    expect(r.rho).toBeNaN();
    expect(r.pValue).toBeNaN();
  });
});

/** Clustered pairs with many ties (y takes few values, like the empirical entropy of a few runs). */
function clusteredPairs(n: number, clusters: number, seed: number): { groups: string[]; x: number[]; y: number[] } {
  const random = seededRandom(seed);
  const groups: string[] = [];
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = Math.floor(random() * clusters);
    const shift = (c % 3) * 0.2;
    const y0 = Math.floor(random() * 4) / 4 + shift;
    groups.push(`c${c}`);
    y.push(y0);
    // x ties too: rounded to two decimals
    x.push(Math.round((y0 + random() * 0.6) * 100) / 100);
  }
  return { groups, x, y };
}

describe("clusterSpearman in linear time", () => {
  it("gives bit-identical ρ, interval and p-value to re-ranking every resample (the former implementation)", () => {
    for (const [n, clusters, seed] of [
      [200, 7, 1],
      [500, 30, 2],
      [60, 3, 3],
      [12, 12, 4],
    ] as const) {
      const { groups, x, y } = clusteredPairs(n, clusters, seed);
      const now = clusterSpearman(groups, x, y, { resamples: 300, seed });
      const before = clusterSpearmanBefore(groups, x, y, { resamples: 300, seed });
      expect(now).toEqual(before);
      expect(now.rho).toBe(spearman(x, y).r);
    }
  });
  it("agrees with the former implementation when resamples are constant or tiny", () => {
    // A cluster whose x is constant: resamples drawing only it are NaN in both.
    const groups = ["a", "a", "a", "b", "b", "c"];
    const x = [1, 1, 1, 2, 3, 4];
    const y = [5, 6, 7, 5, 9, 1];
    expect(clusterSpearman(groups, x, y, { resamples: 200, seed: 9 })).toEqual(
      clusterSpearmanBefore(groups, x, y, { resamples: 200, seed: 9 }),
    );
    const constant = clusterSpearman(groups, [2, 2, 2, 2, 2, 2], y, { resamples: 50 });
    expect(constant).toEqual(clusterSpearmanBefore(groups, [2, 2, 2, 2, 2, 2], y, { resamples: 50 }));
  });
});

describe("rankValues", () => {
  it("gives 0-based midranks and tie groups in increasing value", () => {
    const ranking = rankValues([3, 1, 3, 2, 1]);
    expect(Array.from(ranking.ranks)).toEqual([3.5, 0.5, 3.5, 2, 0.5]);
    expect(Array.from(ranking.groupOf)).toEqual([2, 0, 2, 1, 0]);
    expect(ranking.groups).toBe(3);
  });
  it("equals the former midranks on values with many ties", () => {
    const { x, y } = clusteredPairs(1000, 10, 5);
    expect(Array.from(midranks(x))).toEqual(Array.from(midranksBefore(x)));
    expect(Array.from(midranks(y))).toEqual(Array.from(midranksBefore(y)));
  });
  it("correlates ranks exactly as spearman does", () => {
    const { x, y } = clusteredPairs(300, 5, 6);
    expect(spearmanOfRanks(rankValues(x).ranks, rankValues(y).ranks, x, y)).toBe(spearman(x, y).r);
    expect(spearmanOfRanks(rankValues([1, 1]).ranks, rankValues([1, 2]).ranks, [1, 1], [1, 2])).toBeNaN();
  });
});
