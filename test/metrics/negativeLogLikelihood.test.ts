import { describe, expect, it } from "vitest";
import { negativeLogLikelihood } from "../../src/metrics/negativeLogLikelihood.js";

describe("negativeLogLikelihood", () => {
  it("is the mean −ln of the observed label's probability", () => {
    expect(
      negativeLogLikelihood(
        [
          [0.5, 0.5],
          [0.25, 0.75],
        ],
        [0, 1],
      ),
    ).toBeCloseTo((Math.LN2 + Math.log(4 / 3)) / 2, 12);
    expect(negativeLogLikelihood([new Array(6).fill(1 / 6)], [3])).toBeCloseTo(Math.log(6), 12);
  });
  it("floors zero probabilities at epsilon", () => {
    expect(negativeLogLikelihood([[1, 0]], [1])).toBeCloseTo(-Math.log(1e-12), 9);
    expect(negativeLogLikelihood([[1, 0]], [1], 1e-3)).toBeCloseTo(-Math.log(1e-3), 12);
  });
});
