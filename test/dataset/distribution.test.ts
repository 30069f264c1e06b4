import { describe, expect, it } from "vitest";
import {
  countsFromVector,
  distinctOutcomes,
  entropyBits,
  modeEvent,
  probabilities,
  totalCount,
} from "../../src/dataset/distribution.js";
import {
  classFrequencies,
  majorityAccuracy,
  majorityClass,
  meanEntropy,
  stateCeiling,
  multiOutcomeShare,
  summarizeStates,
} from "../../src/dataset/summary.js";

const c = (v: number[]) => ({ counts: countsFromVector(v) });

describe("empirical distributions", () => {
  it("derives p̂, entropy and mode from counts", () => {
    const counts = countsFromVector([0, 3, 0, 0, 0, 1]);
    expect(totalCount(counts)).toBe(4);
    expect(probabilities(counts)).toEqual([0, 0.75, 0, 0, 0, 0.25]);
    // H = -(.75 log2 .75 + .25 log2 .25) = 0.811278…
    expect(entropyBits(counts)).toBeCloseTo(0.811278, 5);
    expect(entropyBits(countsFromVector([0, 1, 1, 0, 0, 0]))).toBe(1);
    expect(entropyBits(countsFromVector([1, 1, 1, 1, 0, 0]))).toBe(2);
    expect(entropyBits(countsFromVector([0, 0, 5, 0, 0, 0]))).toBe(0);
    expect(modeEvent(counts)).toBe("GoStart");
    expect(distinctOutcomes(counts)).toBe(2);
  });

  it("breaks mode ties by EVENT_TYPES order and has no mode without samples", () => {
    expect(modeEvent(countsFromVector([0, 0, 2, 2, 0, 0]))).toBe("GoBlock");
    expect(modeEvent(countsFromVector([0, 0, 0, 0, 0, 0]))).toBeUndefined();
    expect(probabilities(countsFromVector([0, 0, 0, 0, 0, 0]))).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe("ceiling and baselines", () => {
  const a = c([0, 3, 0, 0, 0, 1]); // mode GoStart: 3 of 4
  const b = c([0, 0, 2, 0, 0, 0]); // mode GoBlock: 2 of 2
  const d = c([1, 1, 1, 1, 1, 0]); // five-way tie → GoCreate: 1 of 5

  it("computes the mode accuracy over all samples", () => {
    expect(stateCeiling([a, b])).toBeCloseTo(5 / 6, 12);
    expect(stateCeiling([a, b, d])).toBeCloseTo(6 / 11, 12);
    expect(stateCeiling([])).toBeNaN();
  });

  it("learns the majority class on train and scores it on test", () => {
    const train = [c([0, 5, 2, 0, 0, 0])];
    const test = [c([0, 1, 3, 0, 0, 0])];
    expect(majorityClass(train)).toBe("GoStart");
    expect(majorityAccuracy(train, test)).toBe(0.25);
    // The ceiling on the same test states is 3/4: majority ≤ ceiling.
    expect(stateCeiling(test)).toBe(0.75);
  });

  it("summarizes class frequencies, mean entropy and multi-outcome share", () => {
    expect(classFrequencies([a, b])).toEqual({
      GoCreate: 0,
      GoStart: 0.5,
      GoBlock: 2 / 6,
      GoUnblock: 0,
      GoSched: 0,
      GoEnd: 1 / 6,
    });
    expect(meanEntropy([a, b])).toBeCloseTo(0.811278 / 2, 5);
    expect(multiOutcomeShare([a, b, d])).toBeCloseTo(2 / 3, 12);
    const s = summarizeStates([a], [a, b]);
    expect(s.ceiling).toBeCloseTo(5 / 6, 12);
    expect(s.majority).toBeCloseTo(3 / 6, 12);
  });
});
