import { describe, expect, it } from "vitest";
import { entropy } from "../../src/metrics/entropy.js";

describe("entropy", () => {
  it("is measured in bits", () => {
    expect(entropy([0.5, 0.5, 0])).toBe(1);
    expect(entropy([0.25, 0.25, 0.25, 0.25])).toBe(2);
    expect(entropy(new Array(6).fill(1 / 6))).toBeCloseTo(Math.log2(6), 12);
    // H(0.75, 0.25) = 0.75·log2(4/3) + 0.25·2
    expect(entropy([0.75, 0.25])).toBeCloseTo(0.75 * Math.log2(4 / 3) + 0.5, 12);
  });
  it("is 0 for a point mass", () => {
    expect(entropy([0, 1, 0, 0, 0, 0])).toBe(0);
  });
});
