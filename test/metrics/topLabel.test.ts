import { describe, expect, it } from "vitest";
import { modeLabels, topLabel } from "../../src/metrics/topLabel.js";

describe("topLabel", () => {
  it("returns the index of the largest entry", () => {
    expect(topLabel([0.2, 0.5, 0.3])).toBe(1);
    expect(topLabel([0, 0, 0, 0, 0, 1])).toBe(5);
  });
  it("breaks ties towards the lowest index", () => {
    expect(topLabel([0.25, 0.5, 0.25, 0.5])).toBe(1);
    expect(topLabel(new Array(6).fill(1 / 6))).toBe(0);
  });
  it("rejects an empty vector", () => {
    expect(() => topLabel([])).toThrow(RangeError);
  });
});

describe("modeLabels", () => {
  it("lists every index attaining the maximum", () => {
    expect(modeLabels([3, 1, 3])).toEqual([0, 2]);
    expect(modeLabels([0, 4, 1])).toEqual([1]);
  });
});
