import { describe, expect, it } from "vitest";
import { labelScore, predictionSet, predictionSetSize } from "../../src/metrics/conformalPredictionSet.js";
import { conformalThreshold } from "../../src/metrics/conformalThreshold.js";

describe("conformal prediction sets (LAC score)", () => {
  it("scores a label by 1 − its probability", () => {
    expect(labelScore([0.7, 0.2, 0.1], 0)).toBeCloseTo(0.3, 15);
    expect(labelScore([0.7, 0.2, 0.1], 1)).toBe(0.8);
    expect(labelScore([1, 0], 1)).toBe(1);
  });

  it("holds the labels whose score is at most the threshold", () => {
    expect(predictionSet([0.7, 0.2, 0.1], 0.85)).toEqual([0, 1]);
    expect(predictionSet([0.7, 0.2, 0.1], 0.8)).toEqual([0, 1]);
    expect(predictionSet([0.7, 0.2, 0.1], 0.5)).toEqual([0]);
    expect(predictionSet([0.7, 0.2, 0.1], 0.2)).toEqual([]);
    expect(predictionSet([0.7, 0.2, 0.1], Infinity)).toEqual([0, 1, 2]);
  });

  it("counts the set's labels without building it, from a typed row as well", () => {
    const q = Float64Array.from([0.7, 0.2, 0.1]);
    for (const t of [0.85, 0.8, 0.5, 0.2, Infinity]) expect(predictionSetSize(q, t)).toBe(predictionSet(q, t).length);
    expect(predictionSetSize(q, 0.85)).toBe(2);
  });

  it("covers the calibration-calibrated share of new samples: an exact case", () => {
    // Ten calibration samples whose observed label got probabilities 0.95, 0.9, …, 0.5:
    // scores 0.05 … 0.5; at 80 % the threshold is the ⌈11·0.8⌉ = 9th smallest score, 0.45.
    const calibrationQ = [0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5];
    const t = conformalThreshold(
      calibrationQ.map((q) => labelScore([q, 1 - q], 0)),
      0.8,
    );
    expect(t).toBeCloseTo(0.45, 12);
    // Test samples: q of the observed label 0.6 (in the set), 0.5 (score 0.5 > 0.45: out), 0.3 (out).
    const test = [
      { q: [0.6, 0.4], y: 0 },
      { q: [0.5, 0.5], y: 1 },
      { q: [0.7, 0.3], y: 1 },
    ];
    const covered = test.map(({ q, y }) => (predictionSet(q, t).includes(y) ? 1 : 0));
    expect(covered).toEqual([1, 0, 0]);
    expect(test.map(({ q }) => predictionSet(q, t))).toEqual([[0], [], [0]]);
  });
});
