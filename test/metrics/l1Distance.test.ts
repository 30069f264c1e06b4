import { describe, expect, it } from "vitest";
import { l1Distance } from "../../src/metrics/l1Distance.js";

describe("l1Distance", () => {
  it("divides the summed absolute difference by the number of classes", () => {
    expect(l1Distance([1, 0, 0], [0.5, 0.5, 0])).toBeCloseTo(1 / 3, 12);
    const uniform = new Array(6).fill(1 / 6);
    const point = [1, 0, 0, 0, 0, 0];
    // |1/6 − 1| + 5·(1/6) = 10/6, over 6
    expect(l1Distance(point, uniform)).toBeCloseTo(10 / 36, 12);
  });
  it("is 0 for equal distributions and at most 2/K", () => {
    expect(l1Distance([0.3, 0.7], [0.3, 0.7])).toBe(0);
    expect(l1Distance([1, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0])).toBeCloseTo(2 / 6, 12);
  });
});
