import { describe, expect, it } from "vitest";
import { complementaryErrorFunction } from "../../src/metrics/complementaryErrorFunction.js";

describe("complementaryErrorFunction", () => {
  it("matches tabulated values to the fit's accuracy", () => {
    expect(complementaryErrorFunction(0)).toBeCloseTo(1, 7);
    expect(complementaryErrorFunction(1)).toBeCloseTo(0.157299207, 7);
    expect(complementaryErrorFunction(2)).toBeCloseTo(0.004677735, 8);
    expect(complementaryErrorFunction(-1)).toBeCloseTo(1.842700793, 7);
  });
  it("keeps small tails instead of rounding them to zero", () => {
    // erfc(6) = 2.151973671e-17
    expect(complementaryErrorFunction(6) / 2.151973671e-17).toBeCloseTo(1, 5);
  });
});
