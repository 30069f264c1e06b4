import { describe, expect, it } from "vitest";
import { modeAccuracy } from "../../src/metrics/modeAccuracy.js";

const oneHot = (k: number, n: number): number[] => Array.from({ length: n }, (_, i) => (i === k ? 1 : 0));

describe("modeAccuracy", () => {
  it("counts a state correct when the predicted label is a mode of its counts", () => {
    // state 1: mode 1 (hit); state 2: modes 0 and 1 (hit on 0); state 3: mode 2, predicted 0 (miss)
    expect(
      modeAccuracy(
        [1, 0, 0].map((k) => oneHot(k, 3)),
        [
          [1, 3, 0],
          [2, 2, 0],
          [0, 1, 5],
        ],
      ),
    ).toBeCloseTo(2 / 3, 12);
  });
  it("weights states equally regardless of how many samples they hold", () => {
    expect(
      modeAccuracy(
        [oneHot(0, 2), oneHot(0, 2)],
        [
          [100, 0],
          [0, 1],
        ],
      ),
    ).toBe(0.5);
  });
  it("credits the share of a tied prediction's labels that are modes", () => {
    // Predicted tie {0, 1} against mode 1: half; tie {0, 1} against modes {0, 1}: whole.
    expect(
      modeAccuracy(
        [
          [0.5, 0.5, 0],
          [0.5, 0.5, 0],
        ],
        [
          [1, 3, 0],
          [2, 2, 0],
        ],
      ),
    ).toBeCloseTo(0.75, 12);
  });
});
