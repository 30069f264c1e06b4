import { describe, expect, it } from "vitest";
import { accuracy } from "../../src/metrics/accuracy.js";

const oneHot = (k: number, n = 3): number[] => Array.from({ length: n }, (_, i) => (i === k ? 1 : 0));

describe("accuracy", () => {
  it("is the fraction of samples whose single top label is the observed one", () => {
    expect(
      accuracy(
        [0, 1, 1, 2].map((k) => oneHot(k)),
        [0, 1, 2, 2],
      ),
    ).toBe(0.75);
    expect(accuracy([oneHot(2), oneHot(2)], [0, 1])).toBe(0);
  });
  it("gives a tie of m top labels 1/m when the observed label is among them", () => {
    // [.4, .4, .2] ties 0 and 1: observed 1 earns 1/2, observed 2 earns 0; uniform earns 1/3.
    expect(
      accuracy(
        [
          [0.4, 0.4, 0.2],
          [0.4, 0.4, 0.2],
          [1 / 3, 1 / 3, 1 / 3],
        ],
        [1, 2, 0],
      ),
    ).toBeCloseTo((0.5 + 0 + 1 / 3) / 3, 12);
    // The uniform predictor over six events scores exactly 1/6 whatever happens.
    const uniform = Array.from({ length: 6 }, () => 1 / 6);
    expect(accuracy([uniform, uniform, uniform], [0, 3, 5])).toBeCloseTo(1 / 6, 12);
  });
  it("is NaN with no samples and rejects mismatched lengths", () => {
    expect(accuracy([], [])).toBeNaN();
    expect(() => accuracy([oneHot(0)], [0, 1])).toThrow(RangeError);
  });
});
