import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/evaluate.js";
import { EvaluationInputError } from "../../src/eval/errors.js";
import { ORACLE, STATES, UNIFORM, makeState, samplesOf } from "./fixtures/states.js";

const context = { abstraction: "split", holdout: "test programs A, B", majorityClass: "GoStart" } as const;

describe("evaluate", () => {
  const result = evaluate(STATES, samplesOf(STATES), [ORACLE, UNIFORM], context);
  const [oracle, uniform] = result.predictors;

  it("names the abstraction and holdout on every result", () => {
    expect(result.abstraction).toBe("split");
    expect(oracle!.holdout).toBe("test programs A, B");
    expect(result.comparisons[0]!.abstraction).toBe("split");
    expect(oracle!.states).toBe(3);
    expect(oracle!.samples).toBe(8);
    expect(oracle!.programs).toBe(2);
  });

  it("scores a predictor of p̂ at the ceiling, perfectly calibrated, with zero divergence", () => {
    // s1 → GoStart right 3/4, s2 → GoEnd 2/2, s3 → GoCreate (tie, lowest index) 1/2
    expect(oracle!.accuracy).toBe(0.75);
    expect(oracle!.ceiling).toBe(0.75);
    expect(oracle!.modeAccuracy).toBe(1);
    expect(oracle!.majority).toBe(3 / 8);
    expect(oracle!.majorityClass).toBe("GoStart");
    expect(oracle!.majoritySource).toBe("train");
    expect(oracle!.ece).toBeCloseTo(0, 12);
    expect(oracle!.kl).toBeCloseTo(0, 12);
    expect(oracle!.l1).toBeCloseTo(0, 12);
    // (3·0.125 + 1.125 + 0 + 0.5 + 0.5) / 8
    expect(oracle!.brier).toBeCloseTo(0.3125, 12);
    // (3·ln(4/3) + ln 4 + 2·ln 2) / 8
    expect(oracle!.nll).toBeCloseTo((3 * Math.log(4 / 3) + Math.log(4) + 2 * Math.LN2) / 8, 12);
    expect(oracle!.entropySpearman).toBeCloseTo(1, 12);
    expect(oracle!.entropyPearson).toBeCloseTo(1, 12);
    expect(oracle!.entropyPearsonP).toBe(0);
    expect(oracle!.entropyStates).toBe(3);
  });

  it("fills per-event scores and the confusion matrix from sample labels", () => {
    expect(oracle!.perEvent.GoStart).toEqual({ precision: 0.75, recall: 1, f1: expect.closeTo(6 / 7, 12), support: 3, predicted: 4 });
    expect(oracle!.perEvent.GoBlock.recall).toBe(0);
    expect(oracle!.perEvent.GoBlock.precision).toBeNaN();
    expect(oracle!.perEvent.GoEnd).toEqual({ precision: 1, recall: 1, f1: 1, support: 2, predicted: 2 });
    expect(oracle!.perEvent.GoCreate.f1).toBeCloseTo(2 / 3, 12);
    expect(oracle!.perEvent.GoSched.f1).toBeNaN();
    // GoSched neither occurs nor is predicted: (6/7 + 0 + 1 + 2/3 + 0) / 5
    expect(oracle!.macroF1).toBeCloseTo((6 / 7 + 1 + 2 / 3) / 5, 12);
    // rows observed, columns predicted: GoBlock (row 2) predicted GoStart (col 1)
    expect(oracle!.confusion[2]).toEqual([0, 1, 0, 0, 0, 0]);
    expect(oracle!.confusion[3]).toEqual([1, 0, 0, 0, 0, 0]);
    expect(oracle!.confusion.flat().reduce((a, b) => a + b, 0)).toBe(8);
  });

  it("scores the uniform baseline by hand-computed values", () => {
    expect(uniform!.accuracy).toBe(1 / 8);
    expect(uniform!.modeAccuracy).toBeCloseTo(1 / 3, 12);
    expect(uniform!.nll).toBeCloseTo(Math.log(6), 12);
    expect(uniform!.brier).toBeCloseTo(30 / 36, 12);
    expect(uniform!.ece).toBeCloseTo(1 / 6 - 1 / 8, 12);
    const klS1 = 0.75 * Math.log(0.75 * 6) + 0.25 * Math.log(0.25 * 6);
    expect(uniform!.kl).toBeCloseTo((klS1 + Math.log(6) + Math.log(3)) / 3, 12);
    expect(uniform!.l1).toBeCloseTo((8 / 36 + 10 / 36 + 8 / 36) / 3, 12);
    // constant predicted entropy: no correlation can be computed
    expect(uniform!.entropySpearman).toBeNaN();
    expect(uniform!.entropyPearsonP).toBeNaN();
    expect(uniform!.ceiling).toBe(0.75);
  });

  it("gives every predictor an ECE interval from the same program resamples as its accuracy interval", () => {
    // uniform: top label GoCreate at confidence 1/6 for every sample, so one bin and ECE = |accuracy − 1/6|.
    // Resamples: {A, B} → 1/8 right, ECE 1/24 (half of them); {A, A} → 0 right, ECE 1/6; {B, B} → 1/2 right, ECE 1/3.
    const i = uniform!.eceInterval;
    expect(i.estimate).toBeCloseTo(uniform!.ece, 12);
    expect(i.estimate).toBeCloseTo(1 / 24, 12);
    expect(i.lower).toBeCloseTo(1 / 24, 12);
    expect(i.upper).toBeCloseTo(1 / 3, 12);
    expect([i.clusters, i.resamples, i.confidence]).toEqual([2, 2000, 0.95]);
    expect([uniform!.accuracyInterval.lower, uniform!.accuracyInterval.upper]).toEqual([0, 0.5]);
    // p̂ itself: every resample repeats whole states, whose hits equal their confidence sums
    expect(oracle!.eceInterval.lower).toBeCloseTo(0, 12);
    expect(oracle!.eceInterval.upper).toBeCloseTo(0, 12);
    const seeded = evaluate(STATES, samplesOf(STATES), [UNIFORM], { ...context, bootstrapResamples: 50, bootstrapSeed: 3 }).predictors[0]!;
    expect(seeded.eceInterval.resamples).toBe(50);
    expect(seeded.accuracyInterval.resamples).toBe(50);
  });

  it("compares every pair with McNemar and a program bootstrap", () => {
    expect(result.comparisons).toHaveLength(1);
    const c = result.comparisons[0]!;
    expect([c.a, c.b]).toEqual(["oracle", "uniform"]);
    expect(c.accuracyA - c.accuracyB).toBeCloseTo(0.625, 12);
    expect(c.mcnemar).toMatchObject({ onlyA: 5, onlyB: 0, method: "exact" });
    expect(c.mcnemar.pValue).toBeCloseTo(2 / 32, 12);
    expect(c.difference.estimate).toBeCloseTo(0.625, 12);
    expect(c.difference.clusters).toBe(2);
    // program A alone: 5/6 − 0; program B alone: 1/2 − 1/2
    expect(c.difference.lower).toBeGreaterThanOrEqual(0);
    expect(c.difference.upper).toBeLessThanOrEqual(5 / 6 + 1e-12);
  });

  it("takes the majority class from the evaluated samples when no training class is given", () => {
    const r = evaluate(STATES, samplesOf(STATES), [UNIFORM], { abstraction: "split", holdout: "all" });
    expect(r.predictors[0]!.majorityClass).toBe("GoStart");
    expect(r.predictors[0]!.majoritySource).toBe("test");
    expect(r.comparisons).toEqual([]);
  });

  it("leaves states with a single sample out of the entropy correlation", () => {
    const states = [...STATES, makeState("s4", "B", { GoSched: 1 })];
    const outputs = [{ ...ORACLE, predictions: [...ORACLE.predictions, { probabilities: [0, 0, 0, 0, 1, 0] }] }];
    const r = evaluate(states, samplesOf(states), outputs, context).predictors[0]!;
    expect(r.entropyStates).toBe(3);
    expect(r.states).toBe(4);
    expect(r.samples).toBe(9);
  });

  it("rejects samples of unknown states, misaligned and invalid predictions", () => {
    const stray = [...samplesOf(STATES), { stateId: "nope", program: "C", runId: 1, end: 0, next: "GoEnd" as const }];
    expect(() => evaluate(STATES, stray, [ORACLE], context)).toThrow(EvaluationInputError);
    expect(() => evaluate(STATES, samplesOf(STATES), [{ ...ORACLE, predictions: ORACLE.predictions.slice(1) }], context)).toThrow(
      /2 predictions for 3 states/,
    );
    const bad = { ...ORACLE, predictions: [{ probabilities: [0.5, 0.6, 0, 0, 0, 0] }, ...ORACLE.predictions.slice(1)] };
    expect(() => evaluate(STATES, samplesOf(STATES), [bad], context)).toThrow(/invalid distribution for state s1/);
  });
});
