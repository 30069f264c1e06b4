import { describe, expect, it } from "vitest";
import { clusterSignFlipTest } from "../../src/metrics/clusterSignFlipTest.js";

describe("clusterSignFlipTest", () => {
  it("enumerates every sign pattern of a few clusters (hand-computed)", () => {
    // Three clusters with summed differences +2, +1, −1 over 6 samples: T = 2/6.
    // Patterns reaching |Σ ±d| ≥ 2: (+,+,+)=2, (+,+,−)=4, (+,−,+)=0, (+,−,−)=2, and their negations → 6 of 8.
    const groups = ["a", "a", "b", "b", "c", "c"];
    const a = [1, 1, 1, 0, 0, 0];
    const b = [0, 0, 0, 0, 1, 0];
    const result = clusterSignFlipTest(groups, a, b);
    expect(result.difference).toBeCloseTo(2 / 6, 12);
    expect(result.method).toBe("exact");
    expect(result.resamples).toBe(8);
    expect(result.pValue).toBeCloseTo(6 / 8, 12);
  });
  it("cannot go below 2 / 2^C however large the difference: the cluster is the unit", () => {
    // 2 clusters, A right on every sample, B on none: McNemar would say p ≈ 0 for 1000 samples.
    const groups = Array.from({ length: 1000 }, (_, i) => (i < 500 ? "p" : "q"));
    const result = clusterSignFlipTest(
      groups,
      groups.map(() => 1),
      groups.map(() => 0),
    );
    expect(result.pValue).toBe(0.5);
  });
  it("gives p = 1 when nothing differs and NaN without samples", () => {
    expect(clusterSignFlipTest(["a", "b"], [1, 0], [1, 0]).pValue).toBe(1);
    expect(clusterSignFlipTest([], [], []).pValue).toBeNaN();
  });
  it("draws seeded random patterns above 16 clusters, reproducibly", () => {
    const groups = Array.from({ length: 40 }, (_, i) => `g${i}`);
    const a = groups.map((_, i) => (i % 3 === 0 ? 1 : 0));
    const b = groups.map(() => 0);
    const one = clusterSignFlipTest(groups, a, b, { resamples: 999, seed: 7 });
    expect(one.method).toBe("monte-carlo");
    expect(one).toEqual(clusterSignFlipTest(groups, a, b, { resamples: 999, seed: 7 }));
    // 14 clusters of +1 out of 40: |T| is reached by few patterns, so p is small but ≥ 1/1000.
    expect(one.pValue).toBeGreaterThanOrEqual(1 / 1000);
    expect(one.pValue).toBeLessThan(0.01);
  });
});
