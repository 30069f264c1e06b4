import { describe, expect, it } from "vitest";
import {
  ceilingAccuracy,
  leaveOneRunOutCeiling,
  leaveOneRunOutCeilingOfColumns,
  seenOnceShare,
  type CeilingSample,
} from "../../src/dataset/ceiling.js";
import { seededRandom } from "../../src/random.js";

/** The leave-one-run-out ceiling as first written: a map of counts per state and per (state, run), credits summed in sample order. */
function mapCeiling(samples: readonly CeilingSample[], classes: number, fallback: number): number {
  const totals = new Map<number, number[]>();
  const perRun = new Map<string, number[]>();
  const tally = <K>(map: Map<K, number[]>, key: K, y: number): void => {
    const v = map.get(key) ?? new Array<number>(classes).fill(0);
    v[y]! += 1;
    map.set(key, v);
  };
  for (const s of samples) {
    tally(totals, s.state, s.observed);
    tally(perRun, `${s.state}:${s.run}`, s.observed);
  }
  let credit = 0;
  for (const s of samples) {
    const all = totals.get(s.state)!;
    const own = perRun.get(`${s.state}:${s.run}`)!;
    const others = all.map((c, k) => c - own[k]!);
    const max = Math.max(...others);
    if (max === 0) credit += s.observed === fallback ? 1 : 0;
    else if (others[s.observed] === max) credit += 1 / others.filter((c) => c === max).length;
  }
  return credit / samples.length;
}

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

  it("leave-one-run-out from columns is the map-based count to the last bit, in any sample order", () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 30; trial++) {
      // Up to 40 states, 6 runs, 1–4 samples per (state, run) (a pooled state has several), 6 classes, shuffled.
      const samples: CeilingSample[] = [];
      const states = 1 + Math.floor(random() * 40);
      for (let state = 0; state < states; state++)
        for (let run = 0; run < 6; run++) {
          if (random() < 0.3) continue;
          const k = 1 + Math.floor(random() * (trial % 2 === 0 ? 1 : 4));
          for (let j = 0; j < k; j++)
            samples.push({ state: state * 7, run: 100 + run, observed: Math.floor(random() * 6) });
        }
      for (let i = samples.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [samples[i], samples[j]] = [samples[j]!, samples[i]!];
      }
      const expected = mapCeiling(samples, 6, 1);
      expect(leaveOneRunOutCeiling(samples, 6, 1)).toBe(expected);
      const columns = {
        state: Int32Array.from(samples, (s) => s.state),
        run: Float64Array.from(samples, (s) => s.run),
        observed: Uint8Array.from(samples, (s) => s.observed),
      };
      expect(leaveOneRunOutCeilingOfColumns(columns, 6, 1)).toBe(expected);
    }
    expect(leaveOneRunOutCeilingOfColumns({ state: [], run: [], observed: [] }, 6, 1)).toBeNaN();
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
