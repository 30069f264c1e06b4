// lowerBound: the first index whose entry is at least the value, on plain and typed arrays.

import { describe, expect, it } from "vitest";
import { lowerBound } from "../../src/core/index.js";

describe("lowerBound", () => {
  it("counts the entries below the value, ties counting as not below", () => {
    const sorted = [1, 3, 3, 7];
    expect([0, 1, 2, 3, 4, 7, 8].map((v) => lowerBound(sorted, v))).toEqual([0, 0, 1, 1, 3, 3, 4]);
    expect(lowerBound(Int32Array.from(sorted), 3)).toBe(1);
    expect(lowerBound([], 5)).toBe(0);
  });
});
