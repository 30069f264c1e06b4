// The four relations on predictors whose agreement is known by construction: identical,
// permuted labels, and tempered (same argmax, flattened). Expected values are worked by
// hand in the comments from the states below.

import { describe, expect, it } from "vitest";
import type { SampleRow, State } from "../../src/dataset/types.js";
import type { PredictorOutput } from "../../src/eval/types.js";
import { checkFidelity, FidelityInputError, mr1Violated, mr3Violated } from "../../src/fidelity/index.js";
import { EVENT_TYPES } from "../../src/core/index.js";

function state(id: string, program: string, counts: readonly number[]): State {
  const full = Object.fromEntries(EVENT_TYPES.map((e, k) => [e, counts[k] ?? 0])) as State["counts"];
  return {
    id,
    abstraction: "split",
    program,
    key: `split=${id}`,
    counts: full,
    runs: counts.reduce((a, b) => a + b, 0),
    representative: { program, runId: 1, procs: 1, records: [], end: 0 },
    prefixHash: `ph-${id}`,
  };
}

function samplesOf(states: readonly State[]): SampleRow[] {
  return states.flatMap((s) =>
    EVENT_TYPES.flatMap((e) =>
      Array.from({ length: s.counts[e] }, (_, i) => ({
        stateId: s.id,
        program: s.program,
        runId: i + 1,
        end: 0,
        next: e,
      })),
    ),
  );
}

const pad = (xs: readonly number[]): number[] => [...xs, ...new Array<number>(6 - xs.length).fill(0)];
const output = (name: string, vectors: readonly (readonly number[])[]): PredictorOutput => ({
  name,
  configHash: name,
  predictions: vectors.map((v) => ({ probabilities: pad(v) })),
});

/** Teacher = p̂ of each state, so it is perfectly calibrated (ECE 0). */
const STATES = [
  state("s1", "A", [4, 1]),
  state("s2", "A", [9, 1]),
  state("s3", "B", [8, 1, 1]),
  state("s4", "B", [1, 1]),
];
const SAMPLES = samplesOf(STATES);
const TEACHER = output("teacher", [
  [0.8, 0.2],
  [0.9, 0.1],
  [0.8, 0.1, 0.1],
  [0.5, 0.5],
]);
/** Same argmax everywhere, flatter: confidences 0.65, 0.75, 0.5, 0.5. */
const TEMPERED = output("tempered", [
  [0.65, 0.35],
  [0.75, 0.25],
  [0.5, 0.25, 0.25],
  [0.5, 0.5],
]);
/** Mass of event k moved to event k+1 (mod 6): a derangement, so every unique top label moves. */
const PERMUTED = output(
  "permuted",
  TEACHER.predictions.map((p) => p.probabilities.map((_, k, q) => q[(k + 5) % 6]!)),
);
const OPTIONS = { resamples: 200, seed: 7 };

describe("checkFidelity", () => {
  it("finds no violation of any relation between a predictor and itself", () => {
    const r = checkFidelity(STATES, SAMPLES, TEACHER, { ...TEACHER, name: "copy" }, OPTIONS);
    for (const name of ["MR1", "MR2", "MR3", "MR4"] as const) {
      expect(r.relations[name].violationRate, name).toBe(0);
      expect(r.relations[name].ci.lower, name).toBe(0);
      expect(r.relations[name].ci.upper, name).toBe(0);
    }
    expect(r.relations.MR4.eceGap).toBe(0);
    expect(r.teacher.accuracy).toBe(r.student.accuracy);
  });

  it("flags every non-tied state under permuted labels", () => {
    const r = checkFidelity(STATES, SAMPLES, TEACHER, PERMUTED, OPTIONS);
    // s4 is tied (0.5/0.5): MR1 does not apply to it
    expect(r.relations.MR1).toMatchObject({ violationRate: 1, units: 3, violations: 3, excluded: 1 });
    expect(r.relations.MR1.ci).toMatchObject({ lower: 1, upper: 1, programs: 2 });
    // the student gives the observed top event probability 0: KL is huge on every state
    expect(r.relations.MR2.violationRate).toBe(1);
    // s1, s2, s3 have teacher confidence ≥ 0.8; the student never picks the same label
    expect(r.relations.MR3).toMatchObject({ violationRate: 1, units: 3, excluded: 1 });
    // teacher top label is GoCreate everywhere: 4 + 9 + 8 + 1 right out of 27
    expect(r.teacher.accuracy).toBeCloseTo(22 / 27, 12);
    // the permuted student's top label is GoStart (s1-s3): 1 + 1 + 1; on s4 it ties GoStart and GoBlock,
    // so its one GoStart sample earns ½
    expect(r.student.accuracy).toBeCloseTo(3.5 / 27, 12);
  });

  it("keeps top-1 agreement under tempering but breaks KL and confidence", () => {
    const r = checkFidelity(STATES, SAMPLES, TEACHER, TEMPERED, OPTIONS);
    expect(r.relations.MR1).toMatchObject({ violationRate: 0, units: 3, excluded: 1 });
    // KL: s1 0.8 ln(0.8/0.65) + 0.2 ln(0.2/0.35) = 0.0542, s2 0.0725, s3 0.8 ln 1.6 + 0.2 ln 0.4 = 0.1927, s4 0
    expect(r.relations.MR2).toMatchObject({ violationRate: 0.25, units: 4, violations: 1 });
    // confident teacher states s1, s2, s3; the student falls below 0.8 − 0.1 on s1 (0.65) and s3 (0.5)
    expect(r.relations.MR3.units).toBe(3);
    expect(r.relations.MR3.violationRate).toBeCloseTo(2 / 3, 12);
    // MR4: only bin 7 ([0.467, 0.533)) holds samples of both: teacher s4 (1 of 2 right),
    // student s3 + s4 (9 of 12 right); |0.5 − 0.75| = 0.25 > 0.1, so all 14 compared samples violate
    const m = r.relations.MR4;
    expect(m.binsCompared).toBe(1);
    expect(m.bins[7]).toMatchObject({
      teacherCount: 2,
      studentCount: 12,
      teacherAccuracy: 0.5,
      studentAccuracy: 0.75,
      violated: true,
    });
    expect(m.violationRate).toBe(1);
    expect(m.units).toBe(14);
    // ECE_T = 0 (teacher = p̂); ECE_S = (|9 − 6| + |4 − 3.25| + |9 − 7.5|) / 27 = 5.25 / 27
    expect(r.teacher.ece).toBeCloseTo(0, 12);
    expect(m.eceGap).toBeCloseTo(5.25 / 27, 12);
    expect(r.student.accuracy).toBeCloseTo(r.teacher.accuracy, 12);
    expect(r.thresholds).toEqual({ tau: 0.1, confidence: 0.8, delta: 0.1, mr4Threshold: 0.1, bins: 15 });
  });

  it("moves MR2 and MR3 with their thresholds", () => {
    const loose = checkFidelity(STATES, SAMPLES, TEACHER, TEMPERED, {
      ...OPTIONS,
      thresholds: { tau: 0.2, delta: 0.35 },
    });
    expect(loose.relations.MR2.violationRate).toBe(0);
    // 0.8 − 0.35 = 0.45: every confident state now passes
    expect(loose.relations.MR3.violationRate).toBe(0);
    const strict = checkFidelity(STATES, SAMPLES, TEACHER, TEMPERED, { ...OPTIONS, thresholds: { tau: 0.05 } });
    // s1 (0.0542), s2 (0.0725), s3 (0.1927) exceed 0.05
    expect(strict.relations.MR2.violationRate).toBe(0.75);
  });

  it("rejects predictions that are not aligned with the states", () => {
    expect(() => checkFidelity(STATES, SAMPLES, TEACHER, output("short", [[1]]))).toThrow(FidelityInputError);
    expect(() => checkFidelity(STATES, SAMPLES, TEACHER, output("bad", [[0.5], [1], [1], [1]]))).toThrow(
      /invalid distribution/,
    );
  });
});

describe("per-state relations", () => {
  it("MR1 needs the student's unique top label to be the teacher's", () => {
    expect(mr1Violated(pad([0.5, 0.5]), pad([1]))).toBeUndefined();
    expect(mr1Violated(pad([0.6, 0.4]), pad([0.5, 0.5]))).toBe(true);
    expect(mr1Violated(pad([0.6, 0.4]), pad([0.51, 0.49]))).toBe(false);
  });

  it("MR3 applies from the confidence threshold on and allows delta below it", () => {
    expect(mr3Violated(pad([0.79, 0.21]), pad([0, 1]), 0.8, 0.1)).toBeUndefined();
    expect(mr3Violated(pad([0.8, 0.2]), pad([0.7, 0.3]), 0.8, 0.1)).toBe(false);
    expect(mr3Violated(pad([0.8, 0.2]), pad([0.69, 0.31]), 0.8, 0.1)).toBe(true);
  });
});
