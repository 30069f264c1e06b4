import { describe, expect, it } from "vitest";
import { everyNthSample, samplesOfRun, sampleStride } from "../../src/dataset/sample-cap.js";

describe("the sample cap", () => {
  it("takes every sample within the cap and the smallest stride that fits above it", () => {
    expect(sampleStride(100_000, 100_000)).toBe(1);
    expect(sampleStride(100_001, 100_000)).toBe(2);
    expect(sampleStride(36_000_000, 100_000)).toBe(360);
    expect(Math.ceil(36_000_000 / sampleStride(36_000_000, 100_000))).toBeLessThanOrEqual(100_000);
    expect(() => sampleStride(10, 0)).toThrow(/positive integer, got 0/);
  });

  it("counts one sample per event, three per run for split, none for an empty run", () => {
    expect(samplesOfRun("depth", 1234)).toBe(1234);
    expect(samplesOfRun("context", 7)).toBe(7);
    expect(samplesOfRun("split", 1234)).toBe(3);
    expect(samplesOfRun("split", 0)).toBe(0);
  });

  it("keeps the 0th, s-th, 2s-th … sample of a run, from its start to its end", () => {
    const kept: number[] = [];
    const visit = everyNthSample((_key, end) => kept.push(end), 4);
    for (let i = 0; i < 10; i++) visit(`depth=${i}`, i, "GoStart");
    expect(kept).toEqual([0, 4, 8]);
  });
});
