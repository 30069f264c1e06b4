import { describe, expect, it } from "vitest";
import { majorityAccuracy, majorityLabel } from "../../src/metrics/majorityAccuracy.js";

describe("majorityAccuracy", () => {
  it("scores one fixed label against every sample", () => {
    expect(majorityAccuracy([1, 1, 0, 2], 1)).toBe(0.5);
    expect(majorityAccuracy([1, 1, 0, 2], 3)).toBe(0);
    expect(majorityAccuracy([], 0)).toBeNaN();
  });
});

describe("majorityLabel", () => {
  it("finds the most frequent label, lowest index on ties", () => {
    expect(majorityLabel([2, 1, 2, 0], 3)).toBe(2);
    expect(majorityLabel([1, 0], 3)).toBe(0);
    expect(majorityLabel([], 6)).toBe(0);
  });
});
