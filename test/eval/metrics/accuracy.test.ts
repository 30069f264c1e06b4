import { describe, expect, it } from "vitest";
import { accuracy } from "../../../src/eval/metrics/accuracy.js";

describe("accuracy", () => {
  it("is the fraction of equal labels", () => {
    expect(accuracy([0, 1, 1, 2], [0, 1, 2, 2])).toBe(0.75);
    expect(accuracy([5, 5], [4, 3])).toBe(0);
  });
  it("is NaN with no samples and rejects mismatched lengths", () => {
    expect(accuracy([], [])).toBeNaN();
    expect(() => accuracy([0], [0, 1])).toThrow(RangeError);
  });
});
