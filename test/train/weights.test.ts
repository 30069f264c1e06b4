// Class rebalancing and per-program capping: the pure rules of weighting.ts.

import { describe, expect, it } from "vitest";
import type { Sample } from "../../src/dataset/types.js";
import {
  capSamplesPerProgram,
  classWeights,
  familyEqualised,
  trainingProgramFactors,
} from "../../src/train/weighting.js";
import type { EventType } from "../../src/core/index.js";
import { ensembleMembers } from "../../src/train/types.js";

const sample = (program: string, end: number, next: EventType = "GoStart"): Sample => ({
  stateId: `${program}:${end}`,
  prefix: { program, runId: 1, procs: 2, records: [], end },
  next,
});

describe("training weights", () => {
  it("rebalances only the rare events, tempered and capped", () => {
    const totals = { GoCreate: 100, GoStart: 1000, GoBlock: 800, GoUnblock: 250, GoSched: 10, GoEnd: 0 };
    const w = classWeights(totals, 0.5, 5);
    expect(w.GoStart).toBe(1);
    expect(w.GoCreate).toBe(1);
    expect(w.GoUnblock).toBeCloseTo(2, 9); // (1000/250)^0.5
    expect(w.GoSched).toBe(5); // (1000/10)^0.5 = 10, capped
    expect(w.GoEnd).toBe(1); // never seen: nothing to reweight
    expect(classWeights(totals, 0, 1).GoSched).toBe(1);
  });

  it("caps samples per program deterministically and scales huge programs down", () => {
    const samples = [...Array.from({ length: 10 }, (_, i) => sample("big", i)), sample("small", 0), sample("small", 1)];
    const a = capSamplesPerProgram(samples, 4, 7);
    expect(a.samples.filter((s) => s.prefix.program === "big")).toHaveLength(4);
    expect(a.samples.filter((s) => s.prefix.program === "small")).toHaveLength(2);
    expect(a.indices).toEqual([...a.indices].sort((x, y) => x - y));
    expect(capSamplesPerProgram(samples, 4, 7).indices).toEqual(a.indices);

    const sizes = [
      ...Array.from({ length: 100 }, (_, i) => sample("huge", i)),
      ...Array.from({ length: 5 }, (_, i) => sample("p", i)),
      ...Array.from({ length: 5 }, (_, i) => sample("q", i)),
    ];
    const factors = trainingProgramFactors(sizes);
    expect(factors.get("p")).toBe(1);
    expect(factors.get("huge")).toBeCloseTo(20 / 100, 9); // 4 × median (5) / 100
  });
});

describe("family balance", () => {
  it("gives every family the mean family total, keeping the weights within a family in proportion", () => {
    // Family f has rows of weight 3 and 1 (total 4), family g one row of 12, program h no family (its own, 2);
    // program z's family has total 0 and keeps its value.
    const weights = familyEqualised(Float64Array.of(3, 1, 12, 2, 0), ["a", "b", "c", "h", "z"], {
      a: "f",
      b: "f",
      c: "g",
    });
    const mean = (4 + 12 + 2 + 0) / 4;
    expect(weights[0]! + weights[1]!).toBeCloseTo(mean, 12);
    expect(weights[0]! / weights[1]!).toBeCloseTo(3, 12);
    expect(weights[2]).toBeCloseTo(mean, 12);
    expect(weights[3]).toBeCloseTo(mean, 12);
    expect(weights[4]).toBe(0);
  });
});

describe("ensemble size", () => {
  it("spends the row budget: five members for a split-sized set, one for a depth-sized one", () => {
    expect(ensembleMembers("auto", 2_907)).toBe(5);
    expect(ensembleMembers("auto", 5_000)).toBe(3);
    expect(ensembleMembers("auto", 39_812)).toBe(1);
    expect(ensembleMembers(2, 39_812)).toBe(2);
  });
});
