// The shared number formatting: one rendering per kind of number, one glyph (an en dash) for
// every missing value, whichever way it is missing, and one (the minus sign) for a negative.

import { describe, expect, it } from "vitest";
import {
  count,
  fixed,
  MINUS,
  MISSING,
  pct,
  pctInterval,
  pctLevel,
  points,
  signed,
  signedPoints,
  signedPointsInterval,
} from "../../src/core/index.js";

describe("number formatting", () => {
  it("prints shares as percentages or points with one decimal", () => {
    expect(pct(0.12345)).toBe("12.3%");
    expect(pct(1)).toBe("100.0%");
    expect(points(-0.0456)).toBe("−4.6");
    expect(pctInterval({ lower: 0.102, upper: 0.148 })).toBe("[10.2, 14.8]");
    expect(fixed(0.12345)).toBe("0.123");
    expect(fixed(2, 2)).toBe("2.00");
  });

  it("prints every negative number with the minus sign U+2212, and no sign where the digits shown are zero", () => {
    expect(MINUS).toBe("\u2212");
    expect(fixed(-0.25)).toBe(`${MINUS}0.250`);
    expect(pct(-0.5)).toBe(`${MINUS}50.0%`);
    expect(count(-1.25)).toBe(`${MINUS}1.3`);
    expect(signed(-0.01)).toBe(`${MINUS}0.010`);
    expect(signed(0.062)).toBe("+0.062");
    expect(signed(-0.00001)).toBe("+0.000");
    expect(fixed(-0.00001)).toBe("0.000");
    expect(signedPoints(-0.021)).toBe(`${MINUS}2.1`);
    expect(signedPointsInterval({ lower: -0.021, upper: 0.03 })).toBe(`[${MINUS}2.1, +3.0]`);
    expect(signedPointsInterval(undefined)).toBe("–");
  });

  it("prints a nominal level with at most one decimal and no trailing zero", () => {
    expect(pctLevel(0.9)).toBe("90%");
    expect(pctLevel(0.925)).toBe("92.5%");
    expect(pctLevel(0.95)).toBe("95%");
  });

  it("prints every missing value (NaN, ±Infinity, null, undefined, no interval) as an en dash", () => {
    expect(MISSING).toBe("–");
    for (const missing of [NaN, Infinity, -Infinity, null, undefined]) {
      expect(pct(missing)).toBe("–");
      expect(points(missing)).toBe("–");
      expect(fixed(missing)).toBe("–");
    }
    expect(pctInterval(null)).toBe("–");
    expect(pctInterval({ lower: null, upper: 0.5 })).toBe("[–, 50.0]");
  });
});
