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
    // s1 → GoStart right 3/4, s2 → GoEnd 2/2, s3 → a tie of GoCreate and GoUnblock, ½ for each of its samples
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
    expect(oracle!.entropyPearsonPIndependent).toBe(0);
    expect(oracle!.entropyStates).toBe(3);
  });

  it("gives the leave-one-run-out ceiling by hand, and the share of states seen once", () => {
    // s1: the three Start runs each see {Start 2, Block 1} → 1; the Block run sees {Start 3} → 0.
    // s2: each End run sees the other End → 1. s3: each run sees only the other event → 0.
    expect(oracle!.ceilingLoo).toBeCloseTo(5 / 8, 12);
    expect(uniform!.ceilingLoo).toBe(oracle!.ceilingLoo);
    expect(oracle!.seenOnce).toEqual({ states: 0, samples: 0 });
    expect(oracle!.clusterUnit).toEqual({ unit: "program", clusters: 2 });
  });

  it("scores the runs it did not read apart: every sample but those of the representative's run", () => {
    // The prefixes are run 1's. Other runs: s1 runs 2, 3 (Start, right) and 4 (Block, wrong); s2 run 2
    // (End, right); s3 run 2 (Unblock, half of a tie): (2 + 1 + ½) / 5, where all eight samples give 6 / 8.
    expect(oracle!.otherRunsAccuracy).toBeCloseTo(3.5 / 5, 12);
    expect(oracle!.otherRunsSamples).toBe(5);
    // Calibration there: s1's three at confidence ¾ with 2 right (|¾ − ⅔|·3), s2's one at 1, right, s3's at ½, half right.
    expect(oracle!.otherRunsEce).toBeCloseTo(0.25 / 5, 12);
    expect(oracle!.otherRunsNll).toBeCloseTo((2 * Math.log(4 / 3) + Math.log(4) + Math.LN2) / 5, 12);
    expect(uniform!.otherRunsAccuracy).toBeCloseTo(1 / 6, 12);
    const i = oracle!.otherRunsAccuracyInterval!;
    expect(i.lower).toBeLessThanOrEqual(3.5 / 5);
    expect(i.upper).toBeGreaterThanOrEqual(3.5 / 5);
    // Only the read run's sample: nothing is left to score on the other runs.
    const own = evaluate(
      [STATES[1]!],
      samplesOf([STATES[1]!]).slice(0, 1),
      [{ ...ORACLE, predictions: [ORACLE.predictions[1]!] }],
      context,
    ).predictors[0]!;
    expect(own.otherRunsAccuracy).toBeNaN();
    expect(own.otherRunsSamples).toBe(0);
  });

  it("fills per-event scores and the confusion matrix from sample labels, a tie counting half for each label", () => {
    expect(oracle!.perEvent.GoStart).toEqual({
      precision: 0.75,
      recall: 1,
      f1: expect.closeTo(6 / 7, 12),
      support: 3,
      predicted: 4,
    });
    expect(oracle!.perEvent.GoBlock.recall).toBe(0);
    expect(oracle!.perEvent.GoBlock.precision).toBeNaN();
    expect(oracle!.perEvent.GoEnd).toEqual({ precision: 1, recall: 1, f1: 1, support: 2, predicted: 2 });
    // s3's tie predicts GoCreate and GoUnblock half a sample each, for each of its two samples.
    expect(oracle!.perEvent.GoCreate).toEqual({ precision: 0.5, recall: 0.5, f1: 0.5, support: 1, predicted: 1 });
    expect(oracle!.perEvent.GoUnblock).toEqual({ precision: 0.5, recall: 0.5, f1: 0.5, support: 1, predicted: 1 });
    expect(oracle!.perEvent.GoSched.f1).toBeNaN();
    // GoSched neither occurs nor is predicted: (6/7 + 0 + 0.5 + 0.5 + 1) / 5
    expect(oracle!.macroF1).toBeCloseTo((6 / 7 + 0.5 + 0.5 + 1) / 5, 12);
    // rows observed, columns predicted: GoBlock (row 2) predicted GoStart (col 1)
    expect(oracle!.confusion[2]).toEqual([0, 1, 0, 0, 0, 0]);
    expect(oracle!.confusion[3]).toEqual([0.5, 0, 0, 0.5, 0, 0]);
    expect(oracle!.confusion.flat().reduce((a, b) => a + b, 0)).toBe(8);
  });

  it("scores the uniform baseline at exactly 1/6 and perfectly calibrated (a tie of six labels)", () => {
    expect(uniform!.accuracy).toBeCloseTo(1 / 6, 15);
    // Per state, the share of the six tied labels that are modes: 1/6, 1/6, 2/6.
    expect(uniform!.modeAccuracy).toBeCloseTo(2 / 9, 12);
    expect(uniform!.nll).toBeCloseTo(Math.log(6), 12);
    expect(uniform!.brier).toBeCloseTo(30 / 36, 12);
    expect(uniform!.ece).toBeCloseTo(0, 12);
    expect(Object.values(uniform!.perEvent).every((e) => e.support === 0 || Math.abs(e.recall - 1 / 6) < 1e-12)).toBe(
      true,
    );
    const klS1 = 0.75 * Math.log(0.75 * 6) + 0.25 * Math.log(0.25 * 6);
    expect(uniform!.kl).toBeCloseTo((klS1 + Math.log(6) + Math.log(3)) / 3, 12);
    expect(uniform!.l1).toBeCloseTo((8 / 36 + 10 / 36 + 8 / 36) / 3, 12);
    // constant predicted entropy: no correlation can be computed
    expect(uniform!.entropySpearman).toBeNaN();
    expect(uniform!.entropySpearmanP).toBeNaN();
    expect(uniform!.entropyPearsonPIndependent).toBeNaN();
    expect(uniform!.ceiling).toBe(0.75);
  });

  it("gives every predictor an ECE interval from the same cluster resamples as its accuracy interval", () => {
    // uniform: every resample scores 1/6 at confidence 1/6, so both intervals collapse.
    const i = uniform!.eceInterval;
    expect(i.estimate).toBeCloseTo(uniform!.ece, 12);
    expect(i.lower).toBeCloseTo(0, 12);
    expect(i.upper).toBeCloseTo(0, 12);
    expect([i.clusters, i.resamples, i.confidence]).toEqual([2, 2000, 0.95]);
    expect(uniform!.accuracyInterval.lower).toBeCloseTo(1 / 6, 12);
    expect(uniform!.accuracyInterval.upper).toBeCloseTo(1 / 6, 12);
    // p̂ itself: every resample repeats whole states, whose credit equals their confidence sums
    expect(oracle!.eceInterval.lower).toBeCloseTo(0, 12);
    expect(oracle!.eceInterval.upper).toBeCloseTo(0, 12);
    // Resamples {A, A} → 5/6, {B, B} → 1/2, {A, B} → 3/4.
    expect(oracle!.accuracyInterval.lower).toBeCloseTo(0.5, 12);
    expect(oracle!.accuracyInterval.upper).toBeCloseTo(5 / 6, 12);
    const seeded = evaluate(STATES, samplesOf(STATES), [UNIFORM], {
      ...context,
      bootstrapResamples: 50,
      bootstrapSeed: 3,
    }).predictors[0]!;
    expect(seeded.eceInterval.resamples).toBe(50);
    expect(seeded.accuracyInterval.resamples).toBe(50);
  });

  it("compares every pair with the cluster sign-flip test, a cluster bootstrap, and McNemar labelled as assuming independence", () => {
    expect(result.comparisons).toHaveLength(1);
    const c = result.comparisons[0]!;
    expect([c.a, c.b]).toEqual(["oracle", "uniform"]);
    expect(c.accuracyA - c.accuracyB).toBeCloseTo(0.75 - 1 / 6, 12);
    // Cluster sums of the credit differences: A 4, B 2/3; of the 4 sign patterns, ±(4 + 2/3) reach |T|.
    expect(c.clusterTest).toMatchObject({ method: "exact", clusters: 2, resamples: 4 });
    expect(c.clusterTest.pValue).toBe(0.5);
    expect(c.clusterUnit).toEqual({ unit: "program", clusters: 2 });
    // Discordance in credit: A ahead by 5/6 on five samples and ⅓ on two, behind by 1/6 on one.
    expect(c.mcnemarIndependent).toMatchObject({ onlyA: 5, onlyB: 0, method: "exact" });
    expect(c.mcnemarIndependent.pValue).toBeCloseTo(2 / 32, 12);
    expect(c.difference.estimate).toBeCloseTo(0.75 - 1 / 6, 12);
    expect(c.difference.clusters).toBe(2);
    expect(c.difference.lower).toBeGreaterThanOrEqual(0);
    expect(c.difference.upper).toBeLessThanOrEqual(5 / 6 + 1e-12);
    // Program by program: the oracle leads on both, the uniform predictor scores 1/6 on each.
    expect(c.programLeads).toMatchObject({ programs: 2, aAhead: 2, bAhead: 0 });
  });

  it("gives each predictor's accuracy program by program, in order of name", () => {
    const [oracle, uniform] = result.predictors;
    expect(oracle!.programAccuracy).toEqual([
      { program: "A", samples: 6, accuracy: expect.closeTo(5 / 6, 12) },
      { program: "B", samples: 2, accuracy: expect.closeTo(0.5, 12) },
    ]);
    expect(uniform!.programAccuracy!.map((p) => p.accuracy)).toEqual([
      expect.closeTo(1 / 6, 12),
      expect.closeTo(1 / 6, 12),
    ]);
  });

  it("gives the program means of accuracy and NLL beside the pooled figures, and the largest program's share", () => {
    // A holds 6 samples (5/6 right), B 2 (1/2 right): pooled 6/8, program mean (5/6 + 1/2) / 2.
    expect(oracle!.accuracy).toBeCloseTo(6 / 8, 12);
    expect(oracle!.means!.unit).toBe("program");
    expect(oracle!.means!.programs).toBe(2);
    expect(oracle!.means!.accuracy.programMean.estimate).toBeCloseTo((5 / 6 + 1 / 2) / 2, 12);
    expect(oracle!.means!.accuracy.familyMean.estimate).toBeCloseTo((5 / 6 + 1 / 2) / 2, 12);
    expect(uniform!.means!.nll.programMean.estimate).toBeCloseTo(Math.log(6), 12);
    expect(uniform!.means!.ece.programMean.estimate).toBeCloseTo(0, 12);
    expect(oracle!.concentration).toMatchObject({ programs: 2, samples: 8, largestProgram: "A", programsForHalf: 1 });
    expect(oracle!.concentration!.largestShare).toBeCloseTo(6 / 8, 12);
  });

  it("splits the entropy correlation's states by cluster, each point numbered by its cluster", () => {
    const clusters = oracle!.entropyByCluster!;
    expect(clusters.map((c) => c.cluster)).toEqual(oracle!.entropyClusters);
    expect(clusters.reduce((n, c) => n + c.states, 0)).toBe(oracle!.entropyStates);
    for (const [k, c] of clusters.entries()) {
      const mine = oracle!.entropyPoints.filter((p) => p.cluster === k);
      expect(mine).toHaveLength(c.states);
      expect(c.meanEmpirical).toBeCloseTo(mine.reduce((t, p) => t + p.empirical, 0) / mine.length, 12);
    }
  });

  it("resamples families, not programs, when the samples span enough of them", () => {
    const many = Array.from({ length: 10 }, (_, i) => makeState(`t${i}`, `p${i}`, { GoStart: 2, GoEnd: 1 }));
    const output = { name: "u", configHash: "h", predictions: many.map(() => ({ probabilities: [0, 1, 0, 0, 0, 0] })) };
    const familyOf = (program: string): string => `f${Number(program.slice(1)) % 5}`;
    const byFamily = evaluate(many, samplesOf(many), [output], { ...context, familyOf }).predictors[0]!;
    expect(byFamily.clusterUnit).toEqual({ unit: "family", clusters: 5 });
    expect(byFamily.accuracyInterval.clusters).toBe(5);
    const few = evaluate(many, samplesOf(many), [output], { ...context, familyOf: () => "one" }).predictors[0]!;
    expect(few.clusterUnit).toEqual({ unit: "program", clusters: 10 });
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
    expect(() =>
      evaluate(STATES, samplesOf(STATES), [{ ...ORACLE, predictions: ORACLE.predictions.slice(1) }], context),
    ).toThrow(/2 predictions for 3 states/);
    const bad = { ...ORACLE, predictions: [{ probabilities: [0.5, 0.6, 0, 0, 0, 0] }, ...ORACLE.predictions.slice(1)] };
    expect(() => evaluate(STATES, samplesOf(STATES), [bad], context)).toThrow(/invalid distribution for state s1/);
  });
});
