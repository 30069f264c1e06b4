import { describe, expect, it } from "vitest";
import { empiricalDistribution } from "../../src/metrics/empiricalDistribution.js";

describe("empiricalDistribution", () => {
  it("normalises counts", () => {
    expect(empiricalDistribution([3, 1, 0])).toEqual([0.75, 0.25, 0]);
  });
  it("leaves all-zero counts at zero", () => {
    expect(empiricalDistribution([0, 0])).toEqual([0, 0]);
  });
});
