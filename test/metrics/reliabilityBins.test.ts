import { describe, expect, it } from "vitest";
import { reliabilityBins } from "../../src/metrics/reliabilityBins.js";

describe("reliabilityBins", () => {
  it("bins samples by top-label probability and records confidence and accuracy", () => {
    const bins = reliabilityBins(
      [
        [0.9, 0.1],
        [0.6, 0.4],
        [0.3, 0.7],
      ],
      [0, 1, 1],
      2,
    );
    expect(bins).toHaveLength(2);
    expect(bins[0]!.count).toBe(0);
    expect(bins[0]!.confidence).toBeNaN();
    expect(bins[1]).toEqual({
      lower: 0.5,
      upper: 1,
      count: 3,
      confidence: expect.closeTo(2.2 / 3, 12),
      accuracy: expect.closeTo(2 / 3, 12),
    });
  });
  it("uses 15 equal-width bins by default and puts confidence 1 in the last bin", () => {
    const bins = reliabilityBins(
      [
        [1, 0],
        [0.5, 0.5],
        [0.2, 0.8],
      ],
      [0, 0, 1],
    );
    expect(bins).toHaveLength(15);
    expect(bins[14]!.count).toBe(1);
    // 0.5 → floor(7.5) = bin 7; 0.8 → floor(12) = bin 12
    expect(bins[7]!.count).toBe(1);
    expect(bins[12]!.count).toBe(1);
    expect(bins[12]!.lower).toBeCloseTo(12 / 15, 12);
  });
});
