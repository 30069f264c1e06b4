import { describe, expect, it } from "vitest";
import { classScores } from "../../src/metrics/classScores.js";

describe("classScores", () => {
  it("reads precision, recall, F1 and support off the matrix", () => {
    const [a, b] = classScores([
      [1, 1],
      [0, 1],
    ]);
    expect(a).toEqual({ precision: 1, recall: 0.5, f1: expect.closeTo(2 / 3, 12), support: 2, predicted: 1 });
    expect(b).toEqual({ precision: 0.5, recall: 1, f1: expect.closeTo(2 / 3, 12), support: 1, predicted: 2 });
  });
  it("handles classes that never occur or are never predicted", () => {
    // class 0: TP 3 FN 1 → P 1, R 0.75, F1 6/7; class 1: occurs once, never predicted;
    // class 2: predicted once, never occurs; class 3: neither.
    const scores = classScores([
      [3, 0, 1, 0],
      [1, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
    expect(scores[0]!.precision).toBe(0.75);
    expect(scores[0]!.recall).toBe(0.75);
    expect(scores[0]!.f1).toBeCloseTo(0.75, 12);
    expect(scores[1]!.precision).toBeNaN();
    expect(scores[1]!.recall).toBe(0);
    expect(scores[1]!.f1).toBe(0);
    expect(scores[2]!.precision).toBe(0);
    expect(scores[2]!.recall).toBeNaN();
    expect(scores[2]!.f1).toBe(0);
    expect(scores[3]!.f1).toBeNaN();
    expect(scores[3]!.support).toBe(0);
  });
});
