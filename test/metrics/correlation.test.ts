import { describe, expect, it } from "vitest";
import { correlationPValue } from "../../src/metrics/correlationPValue.js";
import { pearson, spearman } from "../../src/metrics/correlation.js";

describe("pearson", () => {
  it("computes r and its p-value", () => {
    // dx = [-2,-1,0,1,2], dy = [-1,-2,1,0,2]: Σdxdy = 8, Σdx² = Σdy² = 10 → r = 0.8
    const result = pearson([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]);
    expect(result.r).toBeCloseTo(0.8, 12);
    expect(result.pValue).toBeCloseTo(correlationPValue(0.8, 5), 12);
    expect(result.n).toBe(5);
  });
  it("is NaN when one side is constant or there are fewer than 3 pairs", () => {
    expect(pearson([1, 2, 3], [2, 2, 2]).r).toBeNaN();
    expect(pearson([1, 2, 3], [2, 2, 2]).pValue).toBeNaN();
    expect(pearson([1, 2], [1, 2]).r).toBeNaN();
    // the mean of [0.1, 0.1, 0.1] is 0.10000000000000002: rounding must not make a correlation
    expect(pearson([0.1, 0.1, 0.1], [1, 2, 3]).r).toBeNaN();
    expect(spearman([0.1, 0.1, 0.1], [1, 2, 3]).r).toBeNaN();
  });
});

describe("spearman", () => {
  it("is 1 for any increasing relation", () => {
    expect(spearman([1, 2, 3, 4], [1, 4, 9, 16]).r).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [1, 4, 9, 16]).pValue).toBe(0);
  });
  it("gives tied values their mean rank", () => {
    // ranks x = [0, 1.5, 1.5, 3], y = [0, 1, 2, 3] → r = 4.5 / √(4.5 · 5)
    expect(spearman([1, 2, 2, 3], [1, 2, 3, 4]).r).toBeCloseTo(4.5 / Math.sqrt(22.5), 12);
  });
});
