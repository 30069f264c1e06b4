import { describe, expect, it } from "vitest";
import { conformalThreshold } from "../../src/metrics/conformalThreshold.js";

describe("conformalThreshold", () => {
  it("is the ⌈(n + 1)·coverage⌉-th smallest calibration score", () => {
    // n = 4, coverage 0.5: ⌈2.5⌉ = 3rd smallest, whatever the order given.
    expect(conformalThreshold([0.4, 0.1, 0.3, 0.2], 0.5)).toBe(0.3);
    // n = 9, coverage 0.9: ⌈10·0.9⌉ = 9, exactly: the largest score, not +∞ from rounding 9.000000000000002 up.
    const nine = [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85];
    expect(conformalThreshold(nine, 0.9)).toBe(0.85);
    // n = 19, coverage 0.9: ⌈18⌉ = 18th smallest.
    const nineteen = Array.from({ length: 19 }, (_, i) => (i + 1) / 100);
    expect(conformalThreshold(nineteen, 0.9)).toBe(0.18);
  });

  it("is +∞ when too few calibration samples can certify the coverage", () => {
    // n = 8, coverage 0.9: ⌈8.1⌉ = 9 > 8.
    expect(conformalThreshold([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8], 0.9)).toBe(Infinity);
    expect(conformalThreshold([], 0.9)).toBe(Infinity);
  });

  it("counts a score of weight w as w equal scores", () => {
    // Scores 0.1 ×3, 0.5 ×1, 0.9 ×1: n = 5, coverage 0.5 → ⌈3⌉ = 3rd smallest = 0.1.
    expect(conformalThreshold([0.9, 0.1, 0.5], 0.5, [1, 3, 1])).toBe(0.1);
    // Same at coverage 0.6: ⌈3.6⌉ = 4th smallest = 0.5; at 0.8: ⌈4.8⌉ = 5th = 0.9.
    expect(conformalThreshold([0.9, 0.1, 0.5], 0.6, [1, 3, 1])).toBe(0.5);
    expect(conformalThreshold([0.9, 0.1, 0.5], 0.8, [1, 3, 1])).toBe(0.9);
    // The same as listing the scores one by one; a weight 0 is no sample.
    expect(conformalThreshold([0.9, 0.1, 0.1, 0.1, 0.5], 0.6)).toBe(0.5);
    expect(conformalThreshold([0.9, 0.1, 0.5, 0.05], 0.6, [1, 3, 1, 0])).toBe(0.5);
  });

  it("refuses a coverage outside (0, 1) and malformed weights", () => {
    expect(() => conformalThreshold([0.1], 1)).toThrow(RangeError);
    expect(() => conformalThreshold([0.1], 0)).toThrow(RangeError);
    expect(() => conformalThreshold([0.1, 0.2], 0.5, [1])).toThrow(RangeError);
    expect(() => conformalThreshold([0.1], 0.5, [1.5])).toThrow(RangeError);
  });
});
