import { describe, expect, it } from "vitest";
import { ceilingAccuracy } from "../../../src/eval/metrics/ceilingAccuracy.js";

describe("ceilingAccuracy", () => {
  it("is the share of samples that equal their state's mode", () => {
    expect(ceilingAccuracy([[3, 1], [0, 2]])).toBeCloseTo(5 / 6, 12);
    // a deterministic program: every state has one outcome, ceiling 1
    expect(ceilingAccuracy([[0, 5, 0], [2, 0, 0]])).toBe(1);
    // five runs split 2/2/1: the best single guess is right 2 times in 5
    expect(ceilingAccuracy([[2, 2, 1]])).toBe(0.4);
  });
  it("is NaN without samples", () => {
    expect(ceilingAccuracy([[0, 0]])).toBeNaN();
    expect(ceilingAccuracy([])).toBeNaN();
  });
});
