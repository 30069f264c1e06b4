import { describe, expect, it } from "vitest";
import { expectedCalibrationError } from "../../src/metrics/expectedCalibrationError.js";

describe("expectedCalibrationError", () => {
  it("weights each bin's |accuracy − confidence| by its share of samples", () => {
    expect(
      expectedCalibrationError(
        [
          [0.9, 0.1],
          [0.6, 0.4],
        ],
        [0, 1],
        2,
      ),
    ).toBeCloseTo(0.25, 12);
    // 15 bins: 0.9 → bin 13 (acc 1, conf .9), 0.6 → bin 9 (acc 0, conf .6), 0.7 → bin 10 (acc 1, conf .7)
    // ECE = (0.1 + 0.6 + 0.3) / 3
    expect(
      expectedCalibrationError(
        [
          [0.9, 0.1],
          [0.6, 0.4],
          [0.3, 0.7],
        ],
        [0, 1, 1],
      ),
    ).toBeCloseTo(1 / 3, 12);
  });
  it("is 0 for a predictor whose confidence matches its hit rate", () => {
    // four samples at confidence 0.75, three right
    const q = [0.75, 0.25];
    expect(expectedCalibrationError([q, q, q, q], [0, 0, 0, 1])).toBeCloseTo(0, 12);
  });
  it("is 1 for a certain predictor that is always wrong", () => {
    expect(
      expectedCalibrationError(
        [
          [1, 0],
          [0, 1],
        ],
        [1, 0],
      ),
    ).toBe(1);
  });
});
