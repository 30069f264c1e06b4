import { describe, expect, it } from "vitest";
import { confusionMatrix } from "../../src/metrics/confusionMatrix.js";

const oneHot = (k: number, n: number): number[] => Array.from({ length: n }, (_, i) => (i === k ? 1 : 0));

describe("confusionMatrix", () => {
  it("puts observed labels in rows and predictions in columns", () => {
    expect(
      confusionMatrix(
        [0, 1, 1].map((k) => oneHot(k, 2)),
        [0, 0, 1],
        2,
      ),
    ).toEqual([
      [1, 1],
      [0, 1],
    ]);
    expect(
      confusionMatrix(
        [2, 2, 0, 1].map((k) => oneHot(k, 3)),
        [2, 1, 0, 1],
        3,
      ),
    ).toEqual([
      [1, 0, 0],
      [0, 1, 1],
      [0, 0, 1],
    ]);
  });
  it("spreads a tie of m top labels as 1/m over their columns, keeping row sums", () => {
    expect(
      confusionMatrix(
        [
          [0.5, 0.5, 0],
          [0.2, 0.4, 0.4],
        ],
        [0, 2],
        3,
      ),
    ).toEqual([
      [0.5, 0.5, 0],
      [0, 0, 0],
      [0, 0.5, 0.5],
    ]);
  });
  it("rejects labels outside the classes", () => {
    expect(() => confusionMatrix([oneHot(0, 3)], [3], 3)).toThrow(/out of range/);
    expect(() => confusionMatrix([oneHot(3, 4)], [0], 3)).toThrow(/out of range/);
  });
});
