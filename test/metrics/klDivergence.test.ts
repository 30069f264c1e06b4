import { describe, expect, it } from "vitest";
import { klDivergence } from "../../src/metrics/klDivergence.js";

describe("klDivergence", () => {
  it("computes Σ p ln(p/q) over the support of p", () => {
    expect(klDivergence([0.5, 0.5], [0.25, 0.75])).toBeCloseTo(0.5 * Math.LN2 + 0.5 * Math.log(2 / 3), 12);
    expect(klDivergence([1, 0, 0], [0.5, 0.5, 0])).toBeCloseTo(Math.LN2, 12);
  });
  it("is 0 for identical distributions and ignores q where p is 0", () => {
    expect(klDivergence([0.2, 0.8, 0], [0.2, 0.8, 0])).toBe(0);
  });
  it("floors q at epsilon where p has mass", () => {
    expect(klDivergence([0, 1], [1, 0])).toBeCloseTo(-Math.log(1e-12), 9);
    expect(klDivergence([0.5, 0.5], [1, 0], 1e-4)).toBeCloseTo(0.5 * Math.log(0.5) + 0.5 * Math.log(0.5 / 1e-4), 12);
  });
});
