// Family and program means beside pooled figures (src/eval/weighted.ts), and the share of the
// samples the largest programs hold.

import { describe, expect, it } from "vitest";
import { addProgramSample, emptyProgramSums, sampleConcentration, weightedFigures } from "../../src/eval/index.js";
import { expectedCalibrationError } from "../../src/metrics/index.js";

describe("weightedFigures", () => {
  it("counts every family and every program once, where the pooled figure follows the longest program", () => {
    // Programs 0 and 1 form family 0, program 2 is family 1. Program 0 is long and always right
    // at confidence 0.9; programs 1 and 2 are short and always wrong at confidence 0.6.
    const sums = emptyProgramSums(3, 15);
    for (let i = 0; i < 90; i++) addProgramSample(sums, 0, 1, -Math.log(0.9), 0.9);
    for (let i = 0; i < 5; i++) addProgramSample(sums, 1, 0, -Math.log(0.1), 0.6);
    for (let i = 0; i < 5; i++) addProgramSample(sums, 2, 0, -Math.log(0.1), 0.6);
    const w = weightedFigures(sums, [0, 0, 1], "family", { resamples: 200 });
    expect(w.families).toBe(2);
    expect(w.programs).toBe(3);
    // Family 0: 90 of 95 right; family 1: 0 of 5. Programs: 1, 0, 0.
    expect(w.accuracy.familyMean.estimate).toBeCloseTo((90 / 95 + 0) / 2, 12);
    expect(w.accuracy.programMean.estimate).toBeCloseTo(1 / 3, 12);
    // Program ECEs: |1 − 0.9| = 0.1, |0 − 0.6| = 0.6, 0.6.
    expect(w.ece.programMean.estimate).toBeCloseTo((0.1 + 0.6 + 0.6) / 3, 12);
    // Family 0's ECE is its pooled bins' ECE, as expectedCalibrationError computes it on its samples.
    const family0 = [...Array.from({ length: 90 }, () => [0.9, 0.1]), ...Array.from({ length: 5 }, () => [0.6, 0.4])];
    const observed0 = [...Array.from({ length: 90 }, () => 0), ...Array.from({ length: 5 }, () => 1)];
    const ece0 = expectedCalibrationError(family0, observed0, 15);
    expect(w.ece.familyMean.estimate).toBeCloseTo((ece0 + 0.6) / 2, 12);
    expect(w.nll.programMean.estimate).toBeCloseTo((-Math.log(0.9) - 2 * Math.log(0.1)) / 3, 12);
    expect(w.accuracy.familyMean.lower).toBeLessThanOrEqual(w.accuracy.familyMean.estimate);
    expect(w.accuracy.familyMean.upper).toBeGreaterThanOrEqual(w.accuracy.familyMean.estimate);
    expect(w.accuracy.programMean.clusters).toBe(2);
  });

  it("leaves out programs without samples", () => {
    const sums = emptyProgramSums(3, 15);
    addProgramSample(sums, 0, 1, 0.1, 0.95);
    addProgramSample(sums, 2, 0.5, 0.7, 0.5);
    const w = weightedFigures(sums, [0, 1, 2], "program", { resamples: 50 });
    expect(w.programs).toBe(2);
    expect(w.families).toBe(2);
    expect(w.accuracy.programMean.estimate).toBeCloseTo(0.75, 12);
  });
});

describe("sampleConcentration", () => {
  it("says how many programs hold half of the samples and what the largest hold", () => {
    const c = sampleConcentration(["a", "b", "c", "d", "e"], [10, 60, 10, 10, 10]);
    expect(c.largestProgram).toBe("b");
    expect(c.largestShare).toBeCloseTo(0.6, 12);
    expect(c.largestFourShare).toBeCloseTo(0.9, 12);
    expect(c.programsForHalf).toBe(1);
    expect(c.programs).toBe(5);
    const even = sampleConcentration(["a", "b", "c", "d"], [5, 5, 5, 5]);
    expect(even.programsForHalf).toBe(2);
    expect(even.largestFourShare).toBe(1);
  });
});
