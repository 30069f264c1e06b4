import { describe, expect, it } from "vitest";
import {
  cappedLine,
  cappedProgram,
  everyNthSample,
  keptPositions,
  keptSamples,
  sampleCapJson,
  samplePositions,
  samplesOfRun,
  sampleStride,
  type PositionRange,
} from "../../src/dataset/sample-cap.js";

/** R runs stored whole of `events` events each. */
const wholeRuns = (runs: number, events: number): PositionRange[][] =>
  Array.from({ length: runs }, () => samplePositions("depth", events));

describe("the sample cap", () => {
  it("takes every sample within the cap and the smallest stride that keeps at most the cap above it", () => {
    expect(sampleStride(wholeRuns(1, 100_000), 100_000)).toBe(1);
    expect(sampleStride(wholeRuns(1, 100_001), 100_000)).toBe(2);
    expect(sampleStride(wholeRuns(1, 36_000_000), 100_000)).toBe(360);
    expect(keptSamples(wholeRuns(1, 36_000_000), 360)).toBe(100_000);
    // 2 runs of 4 events, cap 3: stride ceil(8/3) = 3 would keep positions 0 and 3 of both (4 > 3),
    // so 4: position 0 of each run.
    expect(keptSamples(wholeRuns(2, 4), 3)).toBe(4);
    expect(sampleStride(wholeRuns(2, 4), 3)).toBe(4);
    expect(keptSamples(wholeRuns(2, 4), 4)).toBe(2);
    // More runs than the cap: one sample per run is the least any stride keeps.
    expect(sampleStride(wholeRuns(5, 10), 3)).toBe(10);
    expect(keptSamples(wholeRuns(5, 10), 10)).toBe(5);
    expect(() => sampleStride(wholeRuns(1, 10), 0)).toThrow(/positive integer, got 0/);
  });

  it("never keeps more than the cap, whatever the run lengths, when the cap allows one sample per run", () => {
    const lengths = [1, 2, 3, 7, 11, 50, 99, 100, 101, 997];
    for (const cap of [1, 2, 3, 5, 8, 13, 40, 100, 500]) {
      for (const pick of [[0], [3, 3], [2, 5, 9], [1, 4, 6, 7, 8], [9, 9, 9]]) {
        const runs = pick.map((i) => samplePositions("depth", lengths[i]!));
        const stride = sampleStride(runs, cap);
        if (pick.length <= cap) expect(keptSamples(runs, stride)).toBeLessThanOrEqual(cap);
        // …and the stride is the smallest that fits (runs stored whole).
        if (stride > 1 && pick.length <= cap) expect(keptSamples(runs, stride - 1)).toBeGreaterThan(cap);
      }
    }
  });

  it("counts one sample per event, three per run for split, none for an empty run", () => {
    expect(samplesOfRun("depth", 1234)).toBe(1234);
    expect(samplesOfRun("context", 7)).toBe(7);
    expect(samplesOfRun("split", 1234)).toBe(3);
    expect(samplesOfRun("split", 0)).toBe(0);
    expect(samplePositions("split", 1234)).toEqual([[0, 3]]);
    expect(samplePositions("depth", 0)).toEqual([]);
  });

  it("strides over an excerpt's whole-run positions: its windows keep the positions the whole run would", () => {
    // An excerpt of a 1 000 000-event run: windows of 100 stored events at 0, 250 000 and 500 003.
    const excerpt = samplePositions("depth", 300, [
      [0, 100],
      [250_000, 100],
      [500_003, 100],
    ]);
    expect(keptSamples([excerpt], 10)).toBe(10 + 10 + 10);
    // 500 003 … 500 102: the multiples of 10 are 500 010 … 500 100, 10 of them; of 7 (500 003 = 7 · 71 429)
    // 500 003, 500 010 … 500 101, 15 of them.
    expect(keptSamples([[[500_003, 100]]], 10)).toBe(10);
    expect(keptSamples([[[500_003, 100]]], 7)).toBe(15);
    const kept: number[] = [];
    const visit = everyNthSample((_key, _end, _next, position) => kept.push(position), 10);
    for (const [start, count] of excerpt)
      for (let p = start; p < start + count; p++) visit(`depth=${p}`, p, "GoStart", p);
    expect(kept.slice(0, 3)).toEqual([0, 10, 20]);
    expect(kept.slice(10, 13)).toEqual([250_000, 250_010, 250_020]);
    expect(kept.slice(20, 23)).toEqual([500_010, 500_020, 500_030]);
    expect(kept.every((p) => p % 10 === 0)).toBe(true);
    expect(kept).toHaveLength(keptSamples([excerpt], 10));
  });

  it("keeps the 0th, s-th, 2s-th … sample of a run, from its start to its end", () => {
    const kept: number[] = [];
    const visit = everyNthSample((_key, end) => kept.push(end), 4);
    for (let i = 0; i < 10; i++) visit(`depth=${i}`, i, "GoStart", i);
    expect(kept).toEqual([0, 4, 8]);
  });

  it("reports a capped program's samples and, by position, its states", () => {
    // Runs of 10, 10 and 6 events, cap 8: stride 4 keeps 3 + 3 + 2 = 8 samples; states 0, 4, 8 of 10.
    const runs = [samplePositions("depth", 10), samplePositions("depth", 10), samplePositions("depth", 6)];
    expect(cappedProgram("p", "depth", runs, 8)).toEqual({
      program: "p",
      samples: 26,
      stride: 4,
      kept: 8,
      states: { total: 10, kept: 3 },
    });
    expect(keptPositions(runs, 4)).toEqual({ positions: 10, kept: 3 });
    // Not keyed by position: no state counts.
    expect(cappedProgram("p", "context", runs, 8)).toEqual({ program: "p", samples: 26, stride: 4, kept: 8 });
    expect(cappedProgram("p", "depth", runs, 26)).toBeNull();
    const report = { maxSamplesPerProgram: 8, capped: [cappedProgram("p", "depth", runs, 8)!] };
    expect(cappedLine(report)).toBe(
      "capped: 1 program(s) above 8 samples, each sampled evenly along its runs " +
        "(18 of their 26 samples dropped, 7 of their 10 states): p (26 samples, 1 in 4 kept)",
    );
    expect(sampleCapJson(report)).toMatchObject({ programsCapped: 1, samplesDropped: 18, statesDropped: 7 });
    expect(cappedLine({ maxSamplesPerProgram: 8, capped: [] })).toBe("sample cap 8 per program: no program above it");
  });
});
