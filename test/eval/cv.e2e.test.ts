// Leave-family-out cross-validation, the pure core: the fold assignment, the pooling of fold
// predictions and the scoreboard on hand-made inputs with values known by hand (`eval --cv` end
// to end is test/cv/from-database.e2e.test.ts).

import { describe, expect, it } from "vitest";
import {
  assignFolds,
  conformalCalibrationScores,
  conformalThresholdOfStates,
  crossValidationScores,
  familyWeights,
  familyWeightsOfCounts,
  foldColumns,
  foldsBySource,
  joinFoldColumns,
  poolFolds,
  sourceOf,
  pooledMajorityClass,
  type FoldPredictions,
} from "../../src/eval/cv.js";
import { evaluate } from "../../src/eval/evaluate.js";
import { UsageError } from "../../src/errors.js";
import { makeState, samplesOf } from "./fixtures/states.js";

describe("assignFolds", () => {
  const families = [
    { family: "generated/pipeline", samples: 900 },
    { family: "generated/fanin", samples: 700 },
    { family: "kernels/abba", samples: 120 },
    { family: "kernels/chanwg", samples: 80 },
    { family: "patterns/sync", samples: 400 },
    { family: "patterns/timers", samples: 380 },
    { family: "patterns/select", samples: 60 },
    { family: "kernels/orphan", samples: 60 },
  ];

  it("puts every family in exactly one fold", () => {
    const { folds } = assignFolds(families, 3, 1);
    const dealt = folds.flat();
    expect(dealt).toHaveLength(families.length);
    expect(new Set(dealt)).toEqual(new Set(families.map((f) => f.family)));
    expect(folds.every((f) => f.length > 0)).toBe(true);
  });

  it("balances sample counts: largest first, each to the lightest fold", () => {
    const a = assignFolds(families, 3, 1);
    // 900 → f0, 700 → f1, 400 → f2, 380 → f2 (780), 120 → f1 (820), 80 → f2 (860), 60 → f1 (880), 60 → f2 (920)
    expect(a.samples).toEqual([900, 880, 920]);
    expect(a.samples.reduce((s, x) => s + x, 0)).toBe(2700);
    expect(a.folds[0]).toEqual(["generated/pipeline"]);
    expect(a.folds[1]).toHaveLength(3);
    expect(Math.max(...a.samples) - Math.min(...a.samples)).toBeLessThanOrEqual(900);
  });

  it("is deterministic: the same families in any order and the same seed give the same folds", () => {
    const a = assignFolds(families, 4, 7);
    const b = assignFolds([...families].reverse(), 4, 7);
    expect(b).toEqual(a);
  });

  it("uses the seed to order families of equal weight", () => {
    const equal = ["a", "b", "c", "d"].map((family) => ({ family, samples: 10 }));
    const bySeed = new Set([1, 2, 3, 4, 5, 6].map((seed) => JSON.stringify(assignFolds(equal, 2, seed).folds)));
    expect(bySeed.size).toBeGreaterThan(1);
    for (const seed of [1, 2, 3]) expect(assignFolds(equal, 2, seed).samples).toEqual([20, 20]);
  });

  it("refuses fewer than two folds and more folds than families", () => {
    expect(() => assignFolds(families, 1, 1)).toThrow(UsageError);
    expect(() => assignFolds(families.slice(0, 2), 3, 1)).toThrow(/needs at least 3 families/);
  });

  it("weights each family by its samples", () => {
    const family = (p: string): string => p.slice(0, p.lastIndexOf("/"));
    expect(familyWeights(["k/a/x", "k/a/x", "k/b/y", "k/a/z"], family)).toEqual([
      { family: "k/a", samples: 3 },
      { family: "k/b", samples: 1 },
    ]);
    // From per-program counts: the same weights; a program without samples puts no family in.
    const counts = [
      { name: "k/b/y", samples: 1 },
      { name: "k/a/x", samples: 2 },
      { name: "k/c/w", samples: 0 },
      { name: "k/a/z", samples: 1 },
    ];
    expect(familyWeightsOfCounts(counts, family)).toEqual(familyWeights(["k/a/x", "k/a/x", "k/b/y", "k/a/z"], family));
  });
});

describe("foldsBySource", () => {
  it("puts every family of a source, and nothing else, in that source's fold, sources in name order", () => {
    const families = [
      { family: "kernels/abba", samples: 120 },
      { family: "generated/pipeline", samples: 900 },
      { family: "realcode", samples: 50 },
      { family: "kernels/chanwg", samples: 80 },
    ];
    expect(sourceOf("kernels/abba")).toBe("kernels");
    expect(sourceOf("realcode")).toBe("realcode");
    const a = foldsBySource(families, 1);
    expect(a.k).toBe(3);
    expect(a.folds).toEqual([["generated/pipeline"], ["kernels/abba", "kernels/chanwg"], ["realcode"]]);
    expect(a.samples).toEqual([900, 200, 50]);
  });

  it("refuses a corpus of one source", () => {
    expect(() =>
      foldsBySource(
        [
          { family: "kernels/a", samples: 1 },
          { family: "kernels/b", samples: 1 },
        ],
        1,
      ),
    ).toThrow(UsageError);
  });
});

describe("pooling folds and the CV scoreboard", () => {
  // Six programs, each its own family; three per fold. Every state is one program's, seen twice as
  // GoStart. Both folds use the state ids s1..s3, which pooling must keep apart.
  const fold = (programs: readonly string[]) =>
    programs.map((p, i) => ({ ...makeState(`s${i + 1}`, p, { GoStart: 2 }), abstraction: "depth" as const }));
  const states1 = fold(["p1", "p2", "p3"]);
  const states2 = fold(["p4", "p5", "p6"]);
  const soft = { probabilities: [0, 0.8, 0.2, 0, 0, 0] };
  const right = { probabilities: [0, 1, 0, 0, 0, 0] };
  const wrong = { probabilities: [0, 0, 1, 0, 0, 0] };
  const folds: FoldPredictions[] = [
    {
      fold: 1,
      states: states1,
      samples: samplesOf(states1),
      outputs: [
        { name: "ngram-ctx:4", configHash: "r1", predictions: states1.map(() => right) },
        { name: "student:kl", configHash: "k1", predictions: states1.map(() => soft) },
        { name: "flaky", configHash: "f1", predictions: states1.map(() => right) },
      ],
    },
    {
      fold: 2,
      states: states2,
      samples: samplesOf(states2),
      outputs: [
        { name: "ngram-ctx:4", configHash: "r2", predictions: states2.map(() => wrong) },
        { name: "student:kl", configHash: "k2", predictions: states2.map(() => soft) },
      ],
    },
  ];
  const pool = (f: readonly FoldPredictions[]) => poolFolds(f.map(foldColumns));
  const pooled = pool(folds);
  const familyOf = (p: string): string => `family-${p}`;
  const score = (p: typeof pooled) =>
    crossValidationScores(p, {
      abstraction: "depth",
      familyOf,
      majorityClass: "GoStart",
      folds: 2,
      bootstrap: { resamples: 500, seed: 3 },
    });
  const scores = score(pooled);

  it("concatenates the folds' columns, each fold's states apart, and drops predictors missing from a fold", () => {
    // Both folds test states named s1..s3: the second fold's are pooled states 3..5, not 0..2 again.
    expect(pooled.states).toBe(6);
    expect([...pooled.stateOf]).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    expect([...pooled.foldOf]).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
    expect([...pooled.observed]).toEqual(new Array(12).fill(1));
    expect(Array.from(pooled.programOf, (p) => pooled.programNames[p])).toEqual([
      "p1",
      "p1",
      "p2",
      "p2",
      "p3",
      "p3",
      "p4",
      "p4",
      "p5",
      "p5",
      "p6",
      "p6",
    ]);
    expect([...pooled.counts.subarray(18, 24)]).toEqual([0, 2, 0, 0, 0, 0]);
    expect(pooled.outputs.map((o) => o.name)).toEqual(["ngram-ctx:4", "student:kl"]);
    expect(pooled.incomplete).toEqual(["flaky"]);
    expect([...pooled.outputs[0]!.probabilities]).toEqual(
      [right, right, right, wrong, wrong, wrong].flatMap((p) => p.probabilities),
    );
  });

  it("scores the runs each prefix was not read from apart, and takes the gap to the LOO ceiling on them", () => {
    // One state per program, read from run 1: runs 1 and 2 went GoStart, run 3 GoBlock. Always GoStart
    // is right on 2 of 3 samples, but on the runs it did not read (2 and 3) on 1 of 2. The LOO ceiling:
    // runs 1 and 2 see a Start–Block tie (½ each), run 3 sees Start twice (0): 1/3.
    const mixed = (programs: readonly string[]) =>
      programs.map((p) => ({ ...makeState(`m-${p}`, p, { GoStart: 2, GoBlock: 1 }), abstraction: "depth" as const }));
    const two: FoldPredictions[] = [
      ["q1", "q2", "q3"],
      ["q4", "q5", "q6"],
    ].map((programs, f) => {
      const states = mixed(programs);
      return {
        fold: f + 1,
        states,
        samples: samplesOf(states),
        outputs: [{ name: "ngram-ctx:4", configHash: `r${f}`, predictions: states.map(() => right) }],
      };
    });
    const columns = pool(two);
    expect([...columns.unread]).toEqual(new Array(6).fill([0, 1, 1]).flat());
    const [start] = score(columns).predictors;
    expect(start!.accuracy.estimate).toBeCloseTo(2 / 3, 12);
    expect(start!.otherRunsAccuracy.estimate).toBeCloseTo(1 / 2, 12);
    // Sure of GoStart and right on half of the other runs: ECE and over-confidence ½ there, ⅓ over all samples.
    expect(start!.otherRunsEce.estimate).toBeCloseTo(1 / 2, 12);
    expect(start!.otherRunsOverconfidence).toBeCloseTo(1 / 2, 12);
    expect(start!.ece.estimate).toBeCloseTo(1 / 3, 12);
    expect(score(columns).ceilingLoo).toBeCloseTo(1 / 3, 12);
    expect(start!.gapToCeilingLoo).toBeCloseTo(1 / 3 - 1 / 2, 12);
    expect(start!.shareOfCeilingLoo).toBeCloseTo(3 / 2, 12);
  });

  it("joins a fold's columns from its programs' columns, as if its states and samples had been one", () => {
    // Fold 2 as CV builds it: each test program loaded, predicted and reduced to columns on its own.
    const whole = foldColumns(folds[1]!);
    const parts = ["p4", "p5", "p6"].map((program) => {
      const states = folds[1]!.states.filter((s) => s.program === program);
      const ids = new Set(states.map((s) => s.id));
      return foldColumns({
        fold: 2,
        states,
        samples: folds[1]!.samples.filter((s) => ids.has(s.stateId)),
        outputs: folds[1]!.outputs.map((o) => ({
          ...o,
          predictions: o.predictions.filter((_, i) => ids.has(folds[1]!.states[i]!.id)),
        })),
      });
    });
    const answered = folds[1]!.outputs.map((o) => ({ name: o.name, configHash: o.configHash }));
    expect(joinFoldColumns(2, parts, answered)).toEqual(whole);
    const thresholds = { "ngram-ctx:4": 0.5 };
    expect(joinFoldColumns(2, parts, answered.slice(1), thresholds)).toEqual({
      ...whole,
      outputs: whole.outputs.slice(1),
      thresholds,
    });
  });

  it("refuses a fold whose answers or samples do not match its states", () => {
    const short = { ...folds[0]!, outputs: [{ name: "x", configHash: "x", predictions: [right] }] };
    expect(() => foldColumns(short)).toThrow(/x gave 1 predictions for 3 states in fold 1/);
    const stray = {
      ...folds[0]!,
      samples: [{ stateId: "nope", program: "p1", runId: 1, end: 0, next: "GoStart" as const }],
    };
    expect(() => foldColumns(stray)).toThrow(/state 1:nope has no matching state/);
  });

  it("reports accuracy, ECE and NLL pooled over the folds, with family intervals", () => {
    const [reference, student] = scores.predictors;
    expect(scores.clusterUnit).toEqual({ unit: "family", clusters: 6 });
    expect(scores.samples).toBe(12);
    expect(scores.ceiling).toBe(1);
    expect(scores.ceilingLoo).toBe(1);
    expect(scores.majority).toBe(1);
    // Right on every sample with confidence 0.8: ECE |0.8 − 1|, NLL −ln 0.8 in every family.
    expect(student!.accuracy.estimate).toBe(1);
    expect(student!.ece.estimate).toBeCloseTo(0.2, 12);
    expect(student!.nll.estimate).toBeCloseTo(-Math.log(0.8), 12);
    expect(student!.nll.lower).toBeCloseTo(-Math.log(0.8), 12);
    expect(student!.nll.upper).toBeCloseTo(-Math.log(0.8), 12);
    expect(student!.gapToCeilingLoo).toBe(0);
    expect(student!.foldAccuracy).toEqual([1, 1]);
    // The reference is right in fold 1 only.
    expect(reference!.accuracy.estimate).toBe(0.5);
    expect(reference!.foldAccuracy).toEqual([1, 0]);
    // Every family counts once: the reference's family mean is that of 1, 1, 1, 0, 0, 0.
    expect(reference!.clusterMeanAccuracy.estimate).toBe(0.5);
    expect(student!.clusterMeanAccuracy.estimate).toBe(1);
    // Per family: right on the first fold's three, wrong on the second's, two samples each.
    expect(reference!.clusterAccuracy).toEqual(
      ["p1", "p2", "p3", "p4", "p5", "p6"].map((p, i) => ({
        cluster: `family-${p}`,
        samples: 2,
        accuracy: i < 3 ? 1 : 0,
      })),
    );
    expect(reference!.gapToCeilingLoo).toBe(0.5);
    expect(reference!.shareOfCeilingLoo).toBe(0.5);
    expect(reference!.accuracy.lower).toBeGreaterThanOrEqual(0);
    expect(reference!.accuracy.upper).toBeLessThanOrEqual(1);
    expect(reference!.accuracy.lower).toBeLessThan(0.5);
    expect(reference!.nll.estimate).toBeCloseTo(-Math.log(1e-12) / 2, 9);
  });

  it("orients each paired difference as predictor − reference, whichever came first", () => {
    expect(scores.againstReference).toHaveLength(1);
    const d = scores.againstReference[0]!;
    expect(d.predictor).toBe("student:kl");
    expect(d.difference.estimate).toBeCloseTo(0.5, 12);
    expect(d.clusterMeanDifference.estimate).toBeCloseTo(0.5, 12);
    expect(d.clusterMeanDifference.lower).toBeGreaterThan(0);
    expect(d.difference.lower).toBeGreaterThanOrEqual(0);
    expect(d.difference.upper).toBeLessThanOrEqual(1);
    expect(d.difference.lower).toBeLessThanOrEqual(d.difference.upper);
    // Reference listed last: the same difference and interval.
    const swapped = pool(folds.map((f) => ({ ...f, outputs: [...f.outputs].reverse() })));
    const d2 = score(swapped).againstReference[0]!;
    expect(d2.difference.estimate).toBeCloseTo(0.5, 12);
    expect(d2.difference.lower).toBeCloseTo(d.difference.lower, 12);
    expect(d2.difference.upper).toBeCloseTo(d.difference.upper, 12);
  });

  it("agrees with evaluate() on every number both compute", () => {
    // evaluate() on the folds concatenated by hand, each fold's state ids prefixed to keep them apart.
    const states = folds.flatMap((f) => f.states.map((s) => ({ ...s, id: `${f.fold}:${s.id}` })));
    const samples = folds.flatMap((f) => f.samples.map((s) => ({ ...s, stateId: `${f.fold}:${s.stateId}` })));
    const outputs = ["ngram-ctx:4", "student:kl"].map((name) => ({
      name,
      configHash: name,
      predictions: folds.flatMap((f) => f.outputs.find((o) => o.name === name)!.predictions),
    }));
    const result = evaluate(states, samples, outputs, {
      abstraction: "depth",
      holdout: "cv",
      majorityClass: "GoStart",
      familyOf,
      bootstrapResamples: 500,
      bootstrapSeed: 3,
    });
    result.predictors.forEach((e, i) => {
      const p = scores.predictors[i]!;
      expect(p.accuracy).toEqual(e.accuracyInterval);
      expect(p.ece.estimate).toBeCloseTo(e.ece, 12);
      expect([p.ece.lower, p.ece.upper]).toEqual([e.eceInterval.lower, e.eceInterval.upper]);
      expect(p.nll.estimate).toBeCloseTo(e.nll, 12);
      expect(p.brier).toBeCloseTo(e.brier, 12);
      expect(p.macroF1).toBeCloseTo(e.macroF1, 12);
      expect(scores.ceiling).toBe(e.ceiling);
      expect(scores.ceilingLoo).toBe(e.ceilingLoo);
      expect(scores.majority).toBe(e.majority);
      expect(scores.clusterUnit).toEqual(e.clusterUnit);
    });
    const c = result.comparisons[0]!;
    expect(c.a).toBe("ngram-ctx:4");
    // evaluate() reports reference − student here; the scoreboard orients it student − reference.
    expect(scores.againstReference[0]!.difference.estimate).toBeCloseTo(-c.difference.estimate, 12);
    expect(scores.againstReference[0]!.p).toBe(c.clusterTest.pValue);
  });

  it("scores conformal sets under each fold's own threshold: coverage and mean set size", () => {
    // student:kl gives GoStart (the observed event) 0.8 and GoBlock 0.2 everywhere: LAC scores 0.2 and 0.8.
    // Fold 1, t̂ = 0.1: empty sets, nothing covered. Fold 2, t̂ = 0.85: {GoStart, GoBlock}, all covered.
    // The reference: fold 1 right with t̂ = +∞ (all six events, covered); fold 2 puts 1 on GoBlock with
    // t̂ = 0: the set {GoBlock} misses GoStart.
    const withThresholds = pool([
      { ...folds[0]!, thresholds: { "ngram-ctx:4": Infinity, "student:kl": 0.1 } },
      { ...folds[1]!, thresholds: { "ngram-ctx:4": 0, "student:kl": 0.85 } },
    ]);
    expect(withThresholds.thresholds.get("student:kl")).toEqual([0.1, 0.85]);
    const [reference, student] = score(withThresholds).predictors;
    expect(student!.conformal!.target).toBe(0.9);
    expect(student!.conformal!.coverage.estimate).toBe(0.5);
    expect(student!.conformal!.setSize.estimate).toBe(1);
    expect(student!.conformal!.foldThresholds).toEqual([0.1, 0.85]);
    expect(reference!.conformal!.coverage.estimate).toBe(0.5);
    expect(reference!.conformal!.setSize.estimate).toBe(3.5);
    // Families resampled: each family is all-covered or all-missed, so the interval spans [0, 1] with 500 draws of 6.
    expect(student!.conformal!.coverage.lower).toBeLessThan(0.5);
    expect(student!.conformal!.coverage.upper).toBeGreaterThan(0.5);
    // Without thresholds in every fold, no conformal scores.
    expect(scores.predictors.every((p) => p.conformal === null)).toBe(true);
    const partial = pool([{ ...folds[0]!, thresholds: { "student:kl": 0.1 } }, folds[1]!]);
    expect(partial.thresholds.size).toBe(0);
  });

  it("calibrates the threshold on held-out states, each event weighted by its samples", () => {
    const states = [makeState("v1", "p9", { GoStart: 3, GoEnd: 1 }), makeState("v2", "p9", { GoBlock: 1 })];
    const predictions = [{ probabilities: [0, 0.75, 0, 0, 0, 0.25] }, { probabilities: [0, 0.5, 0.5, 0, 0, 0] }];
    expect(conformalCalibrationScores(states, predictions)).toEqual({ scores: [0.25, 0.75, 0.5], weights: [3, 1, 1] });
    // n = 5 samples; at 50 % the ⌈3⌉rd smallest of 0.25 ×3, 0.5, 0.75 is 0.25; at 60 % (⌈3.6⌉ = 4) 0.5.
    expect(conformalThresholdOfStates(states, predictions, 0.5)).toBe(0.25);
    expect(conformalThresholdOfStates(states, predictions, 0.6)).toBe(0.5);
    // 90 % of 5: ⌈5.4⌉ = 6 > 5, so the set must hold every event.
    expect(conformalThresholdOfStates(states, predictions)).toBe(Infinity);
  });

  it("takes the majority class most training folds agree on", () => {
    expect(
      pooledMajorityClass([
        { majority: "GoStart", trainingSamples: 10 },
        { majority: "GoBlock", trainingSamples: 5 },
        { majority: "GoBlock", trainingSamples: 3 },
      ]),
    ).toBe("GoBlock");
    expect(
      pooledMajorityClass([
        { majority: "GoStart", trainingSamples: 10 },
        { majority: "GoBlock", trainingSamples: 11 },
      ]),
    ).toBe("GoBlock");
  });
});
