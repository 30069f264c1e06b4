import { describe, expect, it } from "vitest";
import { regularizedIncompleteBeta } from "../../src/metrics/regularizedIncompleteBeta.js";

describe("regularizedIncompleteBeta", () => {
  it("matches closed forms", () => {
    expect(regularizedIncompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(regularizedIncompleteBeta(0.5, 2, 2)).toBeCloseTo(0.5, 12);
    // I_x(2,2) = 3x² − 2x³
    expect(regularizedIncompleteBeta(0.3, 2, 2)).toBeCloseTo(0.216, 12);
    expect(regularizedIncompleteBeta(0.8, 2, 2)).toBeCloseTo(3 * 0.64 - 2 * 0.512, 12);
    // I_x(a,1) = x^a; I_x(1,b) = 1 − (1−x)^b
    expect(regularizedIncompleteBeta(0.7, 5, 1)).toBeCloseTo(0.7 ** 5, 12);
    expect(regularizedIncompleteBeta(0.2, 1, 7)).toBeCloseTo(1 - 0.8 ** 7, 12);
  });
  it("is 0 and 1 at the ends", () => {
    expect(regularizedIncompleteBeta(0, 3, 4)).toBe(0);
    expect(regularizedIncompleteBeta(1, 3, 4)).toBe(1);
  });
});
