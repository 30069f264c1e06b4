import { describe, expect, test } from "vitest";
import { binomialCdf, clopperPearsonUpper } from "../../src/leaks/index.js";

describe("clopperPearsonUpper", () => {
  test("with no unblock in n runs it is 1 - 0.05^(1/n), near the rule of three", () => {
    expect(clopperPearsonUpper(0, 5)).toBeCloseTo(1 - Math.pow(0.05, 1 / 5), 12);
    expect(clopperPearsonUpper(0, 3)).toBeCloseTo(0.6316, 4);
    expect(clopperPearsonUpper(0, 100)).toBeCloseTo(0.0295, 4);
    expect(Math.abs(clopperPearsonUpper(0, 300) - 3 / 300)).toBeLessThan(0.0005);
  });

  test("matches the exact Clopper-Pearson bound when some runs did unblock", () => {
    // Reference values: qbeta(0.95, x + 1, n - x) in R.
    expect(clopperPearsonUpper(1, 10)).toBeCloseTo(0.3942, 4);
    expect(clopperPearsonUpper(2, 5)).toBeCloseTo(0.8107, 4);
    expect(binomialCdf(1, 10, clopperPearsonUpper(1, 10))).toBeCloseTo(0.05, 8);
  });

  test("knows nothing from zero runs, and rejects impossible counts", () => {
    expect(clopperPearsonUpper(0, 0)).toBe(1);
    expect(clopperPearsonUpper(4, 4)).toBe(1);
    expect(() => clopperPearsonUpper(3, 2)).toThrow(RangeError);
    expect(() => clopperPearsonUpper(0, 2, 1)).toThrow(RangeError);
  });

  test("a higher confidence gives a higher bound", () => {
    expect(clopperPearsonUpper(0, 10, 0.99)).toBeGreaterThan(clopperPearsonUpper(0, 10, 0.95));
  });
});

describe("binomialCdf", () => {
  test("sums binomial probabilities", () => {
    expect(binomialCdf(0, 3, 0.5)).toBeCloseTo(0.125, 12);
    expect(binomialCdf(1, 3, 0.5)).toBeCloseTo(0.5, 12);
    expect(binomialCdf(3, 3, 0.2)).toBe(1);
  });
});
