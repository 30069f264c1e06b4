import { describe, expect, it } from "vitest";
import { brierScore } from "../../src/metrics/brierScore.js";

describe("brierScore", () => {
  it("sums squared errors over classes and averages over samples", () => {
    expect(brierScore([[0.75, 0.25]], [0])).toBeCloseTo(0.125, 12);
    // (0.125 + (0.25² + 0.25²... )) : sample 2 q=[0.5,0.5,0] y=2 → 0.25+0.25+1 = 1.5
    expect(
      brierScore(
        [
          [0.75, 0.25, 0],
          [0.5, 0.5, 0],
        ],
        [0, 2],
      ),
    ).toBeCloseTo((0.125 + 1.5) / 2, 12);
  });
  it("spans 0 (certain and right) to 2 (certain and wrong)", () => {
    expect(brierScore([[1, 0, 0]], [0])).toBe(0);
    expect(brierScore([[1, 0, 0]], [1])).toBe(2);
  });
});
