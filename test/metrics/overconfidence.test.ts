// The signed calibration gap: mean top-label confidence minus accuracy, from the reliability bins.

import { describe, expect, it } from "vitest";
import { expectedCalibrationErrorOfBins, overconfidenceOfBins, reliabilityBins } from "../../src/metrics/index.js";

describe("overconfidenceOfBins", () => {
  it("is the mean confidence minus the accuracy: positive when over-confident, negative when under-confident", () => {
    expect(
      overconfidenceOfBins(
        reliabilityBins(
          [
            [0.9, 0.1],
            [0.6, 0.4],
          ],
          [0, 1],
          2,
        ),
      ),
    ).toBeCloseTo(0.25, 12);
    // Sure of the right answer at 0.6 every time: under-confident by 0.4.
    const under = reliabilityBins(
      [
        [0.6, 0.4],
        [0.6, 0.4],
        [0.4, 0.6],
      ],
      [0, 0, 1],
      15,
    );
    expect(overconfidenceOfBins(under)).toBeCloseTo(-0.4, 12);
    // Where every bin leans the same way, |gap| = ECE.
    expect(Math.abs(overconfidenceOfBins(under))).toBeCloseTo(expectedCalibrationErrorOfBins(under, 3), 12);
  });

  it("is at most the ECE in absolute value, and 0 for a calibrated predictor", () => {
    // One bin over-confident, one under-confident: they cancel in the gap, not in the ECE.
    const mixed = reliabilityBins(
      [
        [0.95, 0.05],
        [0.95, 0.05],
        [0.55, 0.45],
        [0.55, 0.45],
      ],
      [0, 1, 0, 0],
      15,
    );
    expect(overconfidenceOfBins(mixed)).toBeCloseTo((0.95 + 0.95 + 0.55 + 0.55) / 4 - 3 / 4, 12);
    expect(Math.abs(overconfidenceOfBins(mixed))).toBeLessThan(expectedCalibrationErrorOfBins(mixed, 4));
    expect(overconfidenceOfBins(reliabilityBins([[0.5, 0.5]], [0], 15))).toBeCloseTo(0, 12);
    expect(overconfidenceOfBins(reliabilityBins([], [], 15))).toBeNaN();
  });
});
