import { describe, expect, it } from "vitest";
import { correlationPValue } from "../../src/metrics/correlationPValue.js";

describe("correlationPValue", () => {
  it("uses t = r√((n−2)/(1−r²)) with n−2 degrees of freedom", () => {
    // r = 0.8, n = 5 → t = 4/√3, df 3: p = 1 − (2/π)(atan(t/√3) + (t/√3)/(1 + t²/3))
    const u = 4 / 3;
    expect(correlationPValue(0.8, 5)).toBeCloseTo(1 - (2 / Math.PI) * (Math.atan(u) + u / (1 + u * u)), 12);
    // r = 0.5, n = 4 → t = 0.5·√(2/0.75), df 2: p = 1 − t/√(2 + t²)
    const t = 0.5 * Math.sqrt(2 / 0.75);
    expect(correlationPValue(0.5, 4)).toBeCloseTo(1 - t / Math.sqrt(2 + t * t), 12);
  });
  it("is 0 for a perfect correlation, 1 for none, NaN below 3 pairs", () => {
    expect(correlationPValue(1, 5)).toBe(0);
    expect(correlationPValue(-1, 5)).toBe(0);
    expect(correlationPValue(0, 5)).toBe(1);
    expect(correlationPValue(0.9, 2)).toBeNaN();
  });
});
