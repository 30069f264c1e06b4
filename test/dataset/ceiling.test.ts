import { describe, expect, it } from "vitest";
import { ceilingAccuracy, leaveOneRunOutCeiling, seenOnceShare } from "../../src/dataset/ceiling.js";

describe("ceilings", () => {
  it("in-sample: Σ max counts / Σ counts", () => {
    expect(
      ceilingAccuracy([
        [3, 1],
        [0, 2],
      ]),
    ).toBeCloseTo(5 / 6, 12);
    expect(
      ceilingAccuracy([
        [0, 5, 0],
        [2, 0, 0],
      ]),
    ).toBe(1);
    expect(ceilingAccuracy([[2, 2, 1]])).toBe(0.4);
    expect(ceilingAccuracy([[0, 0]])).toBeNaN();
    expect(ceilingAccuracy([])).toBeNaN();
  });

  it("leave-one-run-out, by hand: each sample against its state's mode in the other runs", () => {
    // State 0: Start in runs 1 and 2, Block in run 3 → ½ + ½ + 0 (in-sample 2/3).
    // State 1: Start in run 1 only → no other run: the fallback (Start) → 1 (in-sample 1).
    // State 2: a 50/50 state seen in 4 runs, Start, Start, Block, Block → each run's others are
    //   2:1 against it → 0 for all four (in-sample ½).
    const S = 0;
    const B = 1;
    const samples = [
      { state: 0, run: 1, observed: S },
      { state: 0, run: 2, observed: S },
      { state: 0, run: 3, observed: B },
      { state: 1, run: 1, observed: S },
      { state: 2, run: 1, observed: S },
      { state: 2, run: 2, observed: S },
      { state: 2, run: 3, observed: B },
      { state: 2, run: 4, observed: B },
    ];
    expect(leaveOneRunOutCeiling(samples, 2, S)).toBeCloseTo((0.5 + 0.5 + 0 + 1 + 0) / 8, 12);
    // With a fallback that did not happen, the state seen once earns nothing.
    expect(leaveOneRunOutCeiling(samples, 2, B)).toBeCloseTo(1 / 8, 12);
    expect(leaveOneRunOutCeiling([], 2, S)).toBeNaN();
  });

  it("leave-one-run-out removes a whole run, so a pooled state's many samples from one run do not vote for themselves", () => {
    // One run contributes three Start samples, another one Block: for run 1 the others say Block.
    const samples = [
      { state: 0, run: 1, observed: 0 },
      { state: 0, run: 1, observed: 0 },
      { state: 0, run: 1, observed: 0 },
      { state: 0, run: 2, observed: 1 },
    ];
    expect(leaveOneRunOutCeiling(samples, 2, 0)).toBe(0);
  });

  it("shares of states seen once and of their samples", () => {
    expect(
      seenOnceShare([
        [1, 0],
        [2, 1],
        [0, 1],
        [0, 0],
      ]),
    ).toEqual({ states: 2 / 3, samples: 2 / 5 });
    expect(seenOnceShare([])).toEqual({ states: NaN, samples: NaN });
  });
});
