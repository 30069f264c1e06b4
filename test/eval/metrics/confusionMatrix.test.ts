import { describe, expect, it } from "vitest";
import { confusionMatrix } from "../../../src/eval/metrics/confusionMatrix.js";

describe("confusionMatrix", () => {
  it("puts observed labels in rows and predictions in columns", () => {
    expect(confusionMatrix([0, 1, 1], [0, 0, 1], 2)).toEqual([[1, 1], [0, 1]]);
    expect(confusionMatrix([2, 2, 0, 1], [2, 1, 0, 1], 3)).toEqual([
      [1, 0, 0],
      [0, 1, 1],
      [0, 0, 1],
    ]);
  });
  it("rejects labels outside the classes", () => {
    expect(() => confusionMatrix([3], [0], 3)).toThrow(/out of range/);
  });
});
