import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/evaluate.js";
import { clusterBootstrapMeanDifference } from "../../src/metrics/clusterBootstrap.js";
import { PROBABILITY_FLOOR } from "../../src/metrics/probabilityFloor.js";
import type { EvaluationResult } from "../../src/eval/types.js";
import { EVENT_TYPES } from "../../src/core/index.js";
import { ORACLE, STATES, UNIFORM, samplesOf } from "./fixtures/states.js";
import { syntheticSplit } from "./fixtures/synthetic.js";
import { evaluateBefore } from "./reference/evaluateBefore.js";

/**
 * The result without the fields added since (issue 25's Brier and NLL intervals, the accuracy
 * program by program and on the other runs), to compare with the former evaluate.
 */
function withoutNewIntervals(result: EvaluationResult): EvaluationResult {
  return {
    ...result,
    predictors: result.predictors.map(
      ({
        brierInterval: _b,
        nllInterval: _n,
        programAccuracy: _p,
        otherRunsAccuracy: _o,
        otherRunsAccuracyInterval: _oi,
        otherRunsSamples: _os,
        otherRunsEce: _oe,
        otherRunsNll: _on,
        means: _m,
        concentration: _c,
        entropyClusters: _ec,
        entropyByCluster: _eb,
        entropyPoints,
        ...rest
      }) => ({ ...rest, entropyPoints: entropyPoints.map(({ cluster: _k, ...point }) => point) }),
    ),
  };
}

// evaluate holds samples in typed columns and accumulates every sample metric in one pass;
// these check that every number it returns is bit-identical to the former evaluate (kept in
// test/eval/reference/), point estimates, intervals and p-values alike.
describe("evaluate on typed columns", () => {
  it("returns exactly the former result on the hand-made states", () => {
    const context = { abstraction: "split", holdout: "h", majorityClass: "GoStart", bootstrapResamples: 200 } as const;
    const now = evaluate(STATES, samplesOf(STATES), [ORACLE, UNIFORM], context);
    expect(withoutNewIntervals(now)).toEqual(evaluateBefore(STATES, samplesOf(STATES), [ORACLE, UNIFORM], context));
  });

  it("returns exactly the former result on clustered synthetic data, with program and family clusters", () => {
    const split = syntheticSplit(600, 20, 11);
    for (const familyOf of [undefined, split.familyOf]) {
      const context = {
        abstraction: "depth",
        holdout: "h",
        familyOf,
        bootstrapResamples: 100,
        bootstrapSeed: 5,
      } as const;
      const now = evaluate(split.states, split.samples, split.outputs, context);
      expect(withoutNewIntervals(now)).toEqual(evaluateBefore(split.states, split.samples, split.outputs, context));
      expect(now.predictors[0]!.clusterUnit.unit).toBe(familyOf === undefined ? "program" : "family");
      expect(now.predictors[0]!.entropySpearmanInterval.resamples).toBe(100);
      expect(Number.isFinite(now.predictors[1]!.entropySpearman)).toBe(true);
      expect(now.predictors[2]!.entropySpearman).toBeNaN();
    }
  });

  it("gives Brier and NLL intervals equal to the sample-level cluster bootstrap with the same seed", () => {
    const split = syntheticSplit(300, 12, 3);
    const now = evaluate(split.states, split.samples, split.outputs, {
      abstraction: "depth",
      holdout: "h",
      bootstrapResamples: 300,
      bootstrapSeed: 4,
    });
    const index = new Map(split.states.map((s, i) => [s.id, i]));
    split.outputs.forEach((output, j) => {
      const q = split.samples.map((s) => output.predictions[index.get(s.stateId)!]!.probabilities);
      const observed = split.samples.map((s) => EVENT_TYPES.indexOf(s.next));
      const brier = q.map((row, i) => row.reduce((sum, p, k) => sum + (p - (k === observed[i] ? 1 : 0)) ** 2, 0));
      const nll = q.map((row, i) => -Math.log(Math.max(row[observed[i]!]!, PROBABILITY_FLOOR)));
      const groups = split.samples.map((s) => s.program);
      const zeros = groups.map(() => 0);
      const p = now.predictors[j]!;
      expect(p.brierInterval).toEqual(
        clusterBootstrapMeanDifference(groups, brier, zeros, { resamples: 300, seed: 4 }),
      );
      expect(p.nllInterval).toEqual(clusterBootstrapMeanDifference(groups, nll, zeros, { resamples: 300, seed: 4 }));
      expect(p.brierInterval!.estimate).toBeCloseTo(p.brier, 12);
      expect(p.nllInterval!.estimate).toBeCloseTo(p.nll, 12);
      expect(p.nllInterval!.lower).toBeLessThan(p.nllInterval!.upper);
    });
  });
});
