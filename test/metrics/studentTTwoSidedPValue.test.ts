import { describe, expect, it } from "vitest";
import { studentTTwoSidedPValue } from "../../src/metrics/studentTTwoSidedPValue.js";

describe("studentTTwoSidedPValue", () => {
  it("matches the Cauchy case (1 degree of freedom)", () => {
    // P(|T| ≥ t) = 1 − (2/π)·atan(t)
    expect(studentTTwoSidedPValue(1, 1)).toBeCloseTo(0.5, 12);
    expect(studentTTwoSidedPValue(3, 1)).toBeCloseTo(1 - (2 / Math.PI) * Math.atan(3), 12);
  });
  it("matches the closed form for 2 degrees of freedom", () => {
    // P(|T| ≥ t) = 1 − t/√(2 + t²)
    expect(studentTTwoSidedPValue(2, 2)).toBeCloseTo(1 - 2 / Math.sqrt(6), 12);
    expect(studentTTwoSidedPValue(-2, 2)).toBeCloseTo(1 - 2 / Math.sqrt(6), 12);
  });
  it("gives 0.05 at the tabulated critical value", () => {
    expect(studentTTwoSidedPValue(2.306004, 8)).toBeCloseTo(0.05, 6);
    expect(studentTTwoSidedPValue(0, 8)).toBe(1);
  });
});
