import { describe, expect, it } from "vitest";
import { clusterSpearman, midranks } from "../../../src/eval/metrics/clusterCorrelation.js";

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
