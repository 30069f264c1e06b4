import { describe, expect, it } from "vitest";
import { mcnemar } from "../../src/metrics/mcnemar.js";

function pairs(onlyA: number, onlyB: number, both: number, neither: number): [number[], number[]] {
  const a: number[] = [];
  const b: number[] = [];
  const push = (n: number, x: number, y: number): void => {
    for (let i = 0; i < n; i++) {
      a.push(x);
      b.push(y);
    }
  };
  push(onlyA, 1, 0);
  push(onlyB, 0, 1);
  push(both, 1, 1);
  push(neither, 0, 0);
  return [a, b];
}

describe("mcnemar", () => {
  it("uses the exact binomial test for few discordant pairs", () => {
    expect(mcnemar(...pairs(3, 0, 5, 5))).toEqual({
      onlyA: 3,
      onlyB: 0,
      method: "exact",
      statistic: 0,
      pValue: expect.closeTo(0.25, 12),
    });
    // n = 6, P(X ≤ 1) = 7/64 → p = 14/64
    const result = mcnemar(...pairs(5, 1, 0, 0));
    expect(result.pValue).toBeCloseTo(14 / 64, 12);
    // symmetric in A and B
    expect(mcnemar(...pairs(1, 5, 0, 0)).pValue).toBeCloseTo(14 / 64, 12);
  });
  it("gives p = 1 without discordant pairs or when they balance", () => {
    expect(mcnemar(...pairs(0, 0, 4, 4)).pValue).toBe(1);
    expect(mcnemar(...pairs(4, 4, 0, 0)).pValue).toBe(1);
  });
  it("uses χ² with continuity correction from 25 discordant pairs", () => {
    const result = mcnemar(...pairs(20, 10, 3, 3));
    expect(result.method).toBe("chi-square");
    expect(result.statistic).toBeCloseTo(81 / 30, 12);
    // P(χ²₁ > 2.7) = 0.100348
    expect(result.pValue).toBeCloseTo(0.100348, 5);
  });
  it("counts tie credit differences as fractional discordance, rounded to whole samples", () => {
    // A earns 1 where B earns ½ (twice) and ½ where B earns 0 (twice): onlyA = 2, onlyB = 0.
    expect(mcnemar([1, 1, 0.5, 0.5], [0.5, 0.5, 0, 0])).toMatchObject({ onlyA: 2, onlyB: 0, method: "exact" });
  });
});
