import { describe, expect, it } from "vitest";
import { clusterBootstrapMeanDifference } from "../../../src/eval/metrics/clusterBootstrap.js";

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
    const bySample = clusterBootstrapMeanDifference(a.map((_, i) => `s${i}`), a, b);
    expect(byProgram.upper - byProgram.lower).toBeGreaterThan(2 * (bySample.upper - bySample.lower));
  });
});
