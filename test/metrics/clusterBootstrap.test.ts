import { describe, expect, it } from "vitest";
import {
  clusterBootstrapDraws,
  clusterBootstrapMeanDifference,
  clusterBootstrapStatistic,
  clusterIndex,
} from "../../src/metrics/clusterBootstrap.js";

describe("clusterBootstrapMeanDifference", () => {
  it("estimates the pooled mean difference", () => {
    const result = clusterBootstrapMeanDifference(["p", "p", "q"], [1, 1, 0], [0, 0, 0]);
    expect(result.estimate).toBeCloseTo(2 / 3, 12);
    expect(result.clusters).toBe(2);
    expect(result.resamples).toBe(2000);
    // resamples can only be {p,p} → 1, {q,q} → 0, {p,q} → 2/3
    expect(result.lower).toBeGreaterThanOrEqual(0);
    expect(result.upper).toBeLessThanOrEqual(1);
  });
  it("is reproducible for a seed", () => {
    const groups = ["a", "a", "b", "c", "c", "d", "e"];
    const a = [1, 0, 1, 1, 1, 0, 1];
    const b = [0, 0, 1, 0, 1, 0, 0];
    const x = clusterBootstrapMeanDifference(groups, a, b, { seed: 42 });
    const y = clusterBootstrapMeanDifference(groups, a, b, { seed: 42 });
    expect(y).toEqual(x);
    expect(x.estimate).toBeCloseTo(3 / 7, 12);
    expect(x.lower).toBeLessThanOrEqual(x.estimate);
    expect(x.upper).toBeGreaterThanOrEqual(x.estimate);
  });
  it("collapses to the estimate with one cluster, since a program's samples move together", () => {
    const result = clusterBootstrapMeanDifference(["p", "p", "p", "p"], [1, 0, 1, 1], [0, 0, 0, 0]);
    expect(result.lower).toBe(0.75);
    expect(result.upper).toBe(0.75);
  });
  it("is wider when resampling programs than when resampling correlated samples one by one", () => {
    // 10 programs, each all-right or all-wrong for A, B always wrong
    const groups: string[] = [];
    const a: number[] = [];
    for (let p = 0; p < 10; p++) {
      for (let s = 0; s < 20; s++) {
        groups.push(`p${p}`);
        a.push(p % 2);
      }
    }
    const b = a.map(() => 0);
    const byProgram = clusterBootstrapMeanDifference(groups, a, b);
    const bySample = clusterBootstrapMeanDifference(
      a.map((_, i) => `s${i}`),
      a,
      b,
    );
    expect(byProgram.upper - byProgram.lower).toBeGreaterThan(2 * (bySample.upper - bySample.lower));
  });
});

describe("clusterBootstrapMeanDifference on the shared resampling loop", () => {
  const groups = ["a", "a", "b", "c", "c", "d", "e", "b", "f", "f", "f", "g"];
  const a = [0.3, 0.7, 0.11, 0.93, 0.5, 0.01, 0.77, 0.2, 0.6, 0.45, 0.05, 0.88];
  const b = [0.1, 0.2, 0.9, 0.3, 0.31, 0.4, 0.12, 0.6, 0.7, 0.05, 0.5, 0.25];
  it("gives bit-identical intervals to the former dedicated loop (values pinned from commit f6200df)", () => {
    const options = { resamples: 300, confidence: 0.9 };
    expect(clusterBootstrapMeanDifference(groups, a, b, { ...options, seed: 1 })).toEqual({
      estimate: 0.08916666666666669,
      lower: -0.15077243589743589,
      upper: 0.40777777777777774,
      confidence: 0.9,
      resamples: 300,
      clusters: 7,
    });
    expect(clusterBootstrapMeanDifference(groups, a, b, { ...options, seed: 42 })).toEqual({
      estimate: 0.08916666666666669,
      lower: -0.17409090909090918,
      upper: 0.32820833333333344,
      confidence: 0.9,
      resamples: 300,
      clusters: 7,
    });
  });
  it("equals the general item-level bootstrap of the same statistic, draw for draw", () => {
    const meanDifference = (ix: readonly number[]): number => ix.reduce((s, i) => s + a[i]! - b[i]!, 0) / ix.length;
    const general = clusterBootstrapStatistic(groups, meanDifference, { seed: 5, resamples: 400 });
    const special = clusterBootstrapMeanDifference(groups, a, b, { seed: 5, resamples: 400 });
    expect(general.clusters).toBe(7);
    expect(general.estimate).toBeCloseTo(special.estimate, 12);
    expect(general.lower).toBeCloseTo(special.lower, 12);
    expect(general.upper).toBeCloseTo(special.upper, 12);
  });
});

describe("clusterIndex", () => {
  it("numbers clusters in order of first appearance and counts their items", () => {
    const index = clusterIndex(["q", "p", "q", "r"]);
    expect([...index.clusterOf]).toEqual([0, 1, 0, 2]);
    expect(index.sizes).toEqual([2, 1, 1]);
  });
});

describe("clusterBootstrapDraws", () => {
  it("evaluates the estimate on the full data and each resample on a draw of as many clusters, with replacement", () => {
    const seen: number[][] = [];
    const result = clusterBootstrapDraws(
      3,
      (drawn) => {
        seen.push([...drawn]);
        return drawn.reduce((s, g) => s + g, 0);
      },
      { resamples: 50, seed: 3 },
    );
    expect(seen[0]).toEqual([0, 1, 2]);
    expect(result.estimate).toBe(3);
    expect(seen).toHaveLength(51);
    for (const d of seen.slice(1)) {
      expect(d).toHaveLength(3);
      for (const g of d) expect([0, 1, 2]).toContain(g);
    }
    // some draw repeats a cluster (the chance that 50 draws of 3 never do is (6/27)^50)
    expect(seen.slice(1).some((d) => new Set(d).size < 3)).toBe(true);
    expect(result.lower).toBeGreaterThanOrEqual(0);
    expect(result.upper).toBeLessThanOrEqual(6);
  });
  it("gives the same draws for the same seed whatever the statistic", () => {
    const first: number[][] = [];
    const second: number[][] = [];
    clusterBootstrapDraws(4, (d) => (first.push([...d]), 0), { resamples: 20, seed: 9 });
    clusterBootstrapDraws(4, (d) => (second.push([...d]), 1), { resamples: 20, seed: 9 });
    expect(second).toEqual(first);
  });
  it("returns NaN without clusters", () => {
    const result = clusterBootstrapDraws(0, () => 1);
    expect(result.estimate).toBeNaN();
    expect(result.lower).toBeNaN();
    expect(result.resamples).toBe(0);
  });
});

describe("clusterBootstrapStatistic", () => {
  it("bootstraps a ratio of sums (not a mean of per-item values) over whole clusters", () => {
    // ratio Σ hits / Σ trials; program p: 9/10, program q: 1/10
    const groups = ["p", "p", "q", "q"];
    const hits = [4, 5, 0, 1];
    const trials = [5, 5, 5, 5];
    const ratio = (ix: readonly number[]): number =>
      ix.reduce((s, i) => s + hits[i]!, 0) / ix.reduce((s, i) => s + trials[i]!, 0);
    const result = clusterBootstrapStatistic(groups, ratio, { seed: 1 });
    expect(result.estimate).toBeCloseTo(0.5, 12);
    // resamples are {p,p} → 0.9, {q,q} → 0.1, {p,q} → 0.5
    expect(result.lower).toBeCloseTo(0.1, 12);
    expect(result.upper).toBeCloseTo(0.9, 12);
  });
  it("collapses to the estimate with one cluster", () => {
    const result = clusterBootstrapStatistic(["p", "p", "p"], (ix) => ix.length * 2);
    expect([result.estimate, result.lower, result.upper]).toEqual([6, 6, 6]);
  });
});
