import { describe, expect, it } from "vitest";
import { classScores } from "../../src/metrics/classScores.js";
import { macroF1 } from "../../src/metrics/macroF1.js";

describe("macroF1", () => {
  it("averages F1 over classes that occurred or were predicted", () => {
    expect(macroF1([{ f1: 1 }, { f1: 0 }, { f1: NaN }])).toBe(0.5);
  });
  it("counts a missed class as 0 and ignores a class with no support and no predictions", () => {
    const scores = classScores([
      [3, 0, 1, 0],
      [1, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
    // (0.75 + 0 + 0) / 3, class 3 left out
    expect(macroF1(scores)).toBeCloseTo(0.25, 12);
  });
  it("is NaN when nothing can be scored", () => {
    expect(macroF1([{ f1: NaN }])).toBeNaN();
  });
});
