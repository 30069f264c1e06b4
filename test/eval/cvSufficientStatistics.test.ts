// crossValidationScores reads each predictor's pooled samples once and keeps only sums per
// cluster, fold, program and calibration bin; this checks it against the former per-sample
// computation (test/eval/reference/crossValidationScoresBefore.ts) to the last bit, on folds
// shaped like real ones: many families of several programs, states seen by several runs (the
// representative's run and the others), tied and zero probabilities, conformal thresholds that
// admit nothing, everything or exactly the observed event's score.

import { describe, expect, it } from "vitest";
import { EVENT_TYPES, type EventType } from "../../src/core/index.js";
import type { SampleRow, State } from "../../src/dataset/types.js";
import {
  crossValidationScores,
  foldColumns,
  poolFolds,
  type CrossValidationScores,
  type FoldPredictions,
  type ScoreOptions,
} from "../../src/eval/cv.js";
import { clusterSignFlipTest, clusterSignFlipTestOfSums } from "../../src/metrics/clusterSignFlipTest.js";
import { clusterIndex } from "../../src/metrics/clusterBootstrap.js";
import { expectedCalibrationError, PROBABILITY_FLOOR, tieCredit } from "../../src/metrics/index.js";
import { leaveOneRunOutCeilingOfColumns } from "../../src/dataset/index.js";
import { programAccuracy, programAccuracyOfSums, programLeads, programLeadsOfSums } from "../../src/eval/compare.js";
import { seededRandom } from "../../src/random.js";
import { crossValidationScoresBefore } from "./reference/crossValidationScoresBefore.js";

/**
 * The scores without what the former computation did not have: the family and program means and
 * the samples' concentration (checked against a per-sample computation below).
 */
function former(scores: CrossValidationScores): unknown {
  const { concentration: _concentration, families: _families, ...rest } = scores;
  return {
    ...rest,
    predictors: scores.predictors.map(
      ({ means: _means, otherRunsMeans: _other, otherRunsFamilies: _otherFamilies, ...p }) => p,
    ),
  };
}

const K = EVENT_TYPES.length;

/** A fold whose samples are rows (each with its run). */
type Fold = Omit<FoldPredictions, "samples"> & { readonly samples: readonly SampleRow[] };

const PREDICTORS = ["ngram-ctx:4", "student:kl", "uniform"];

/** A distribution of one of the shapes predictors give: peaked, a two- or three-way tie, uniform, with zeros. */
function prediction(random: () => number, name: string): number[] {
  if (name === "uniform") return EVENT_TYPES.map(() => 1 / 6);
  const shape = random();
  if (shape < 0.15) {
    const [a, b] = [Math.floor(random() * 6), Math.floor(random() * 6)];
    return EVENT_TYPES.map((_, k) => (k === a || k === b ? (a === b ? 1 : 0.5) : 0));
  }
  if (shape < 0.25) return EVENT_TYPES.map((_, k) => (k % 2 === 0 ? 1 / 3 : 0));
  const w = EVENT_TYPES.map(() => (random() < 0.3 ? 0 : random() ** 3));
  w[Math.floor(random() * 6)]! += 0.5;
  const total = w.reduce((s, x) => s + x, 0);
  return w.map((x) => x / total);
}

/** One fold: its families' programs, each with states reached by 1–5 runs, samples in program, run, position order. */
function fold(random: () => number, index: number, families: readonly string[]): Fold {
  const states: State[] = [];
  const samples: SampleRow[] = [];
  for (const family of families) {
    const programs = 1 + Math.floor(random() * 3);
    for (let p = 0; p < programs; p++) {
      const program = `${family}/p${p}`;
      const runs = 1 + Math.floor(random() * 5);
      const depth = 3 + Math.floor(random() * 12);
      for (let d = 0; d < depth; d++) {
        const id = `${program}#${d}`;
        const counts = Object.fromEntries(EVENT_TYPES.map((e) => [e, 0])) as Record<EventType, number>;
        // The representative is the first run that reached the state, not always run 1.
        const first = 1 + Math.floor(random() * runs);
        for (let run = first; run <= runs; run++) {
          // A skewed next event, so modes, ties and the majority class all occur.
          const next = EVENT_TYPES[random() < 0.5 ? 1 : Math.floor(random() * 6)]!;
          counts[next] += 1;
          samples.push({ stateId: id, program, runId: run, end: d, next });
        }
        states.push({
          id,
          abstraction: "depth",
          program,
          key: `depth=${d}`,
          counts,
          runs: runs - first + 1,
          representative: { program, runId: first, procs: 2, records: [], end: d },
          prefixHash: id,
        });
      }
    }
  }
  const outputs = PREDICTORS.map((name) => ({
    name,
    configHash: `${name}@${index}`,
    predictions: states.map(() => ({ probabilities: prediction(random, name) })),
  }));
  // Thresholds as t̂ comes out: a calibration score (1 − q), 0, or +∞ (the set holds every event).
  const thresholds = Object.fromEntries(
    PREDICTORS.map((name, i) => [name, [0.5, 0, Infinity, 1 - 1 / 3, 0.8][(index + i) % 5]!]),
  );
  return { fold: index, states, samples, outputs, thresholds };
}

describe("crossValidationScores from sufficient statistics", () => {
  const random = seededRandom(2024);
  const families = Array.from({ length: 14 }, (_, i) => `src${i % 3}/family${i}`);
  const folds = [0, 1, 2, 3].map((f) =>
    fold(
      random,
      f + 1,
      families.filter((_, i) => i % 4 === f),
    ),
  );
  const pooled = poolFolds(folds.map(foldColumns));
  const options: ScoreOptions = {
    abstraction: "depth",
    familyOf: (program) => program.slice(0, program.lastIndexOf("/")),
    majorityClass: "GoStart",
    folds: 4,
    bootstrap: { resamples: 300, seed: 5 },
  };

  it("gives every number of the per-sample computation, bit for bit", () => {
    expect(pooled.unread.some((u) => u === 1) && pooled.unread.some((u) => u === 0)).toBe(true);
    const scores = crossValidationScores(pooled, options);
    expect(scores.clusterUnit.unit).toBe("family");
    expect(scores.predictors.every((p) => p.conformal !== null)).toBe(true);
    expect(scores.againstReference).toHaveLength(2);
    expect(former(scores)).toStrictEqual(crossValidationScoresBefore(pooled, options));
  });

  it("gives the family and program means of accuracy, ECE and NLL that the samples of each give", () => {
    const scores = crossValidationScores(pooled, options);
    for (const [index, output] of pooled.outputs.entries()) {
      const predictor = scores.predictors[index]!;
      const byProgram = new Map<number, { q: number[][]; o: number[] }>();
      for (let j = 0; j < pooled.stateOf.length; j++) {
        const s = pooled.stateOf[j]!;
        const entry = byProgram.get(pooled.programOf[j]!) ?? { q: [], o: [] };
        entry.q.push(Array.from(output.probabilities.subarray(s * K, (s + 1) * K)));
        entry.o.push(pooled.observed[j]!);
        byProgram.set(pooled.programOf[j]!, entry);
      }
      const programs = [...byProgram.values()];
      const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
      const accuracyOf = (e: { q: number[][]; o: number[] }): number => mean(e.q.map((q, i) => tieCredit(q, e.o[i]!)));
      const nllOf = (e: { q: number[][]; o: number[] }): number =>
        mean(e.q.map((q, i) => -Math.log(Math.max(q[e.o[i]!]!, PROBABILITY_FLOOR))));
      expect(predictor.means.programs).toBe(programs.length);
      expect(predictor.means.accuracy.programMean.estimate).toBeCloseTo(mean(programs.map(accuracyOf)), 12);
      expect(predictor.means.ece.programMean.estimate).toBeCloseTo(
        mean(programs.map((e) => expectedCalibrationError(e.q, e.o))),
        12,
      );
      expect(predictor.means.nll.programMean.estimate).toBeCloseTo(mean(programs.map(nllOf)), 12);
      expect(predictor.means.accuracy.familyMean.estimate).toBeCloseTo(predictor.clusterMeanAccuracy.estimate, 12);
      expect(predictor.means.accuracy.familyMean.lower).toBeCloseTo(predictor.clusterMeanAccuracy.lower, 12);
      expect(predictor.means.accuracy.familyMean.upper).toBeCloseTo(predictor.clusterMeanAccuracy.upper, 12);
    }
    // Each family's leave-one-run-out ceiling is the ceiling of its own samples, and each family's
    // accuracy on the other runs the mean credit of its samples from runs the prefix was not read from.
    const familyOf = (j: number): string => options.familyOf(pooled.programNames[pooled.programOf[j]!]!);
    for (const family of scores.families) {
      const rows = Array.from(pooled.stateOf.keys()).filter((j) => familyOf(j) === family.family);
      expect(family.samples).toBe(rows.length);
      expect(family.ceilingLoo).toBeCloseTo(
        leaveOneRunOutCeilingOfColumns(
          {
            state: rows.map((j) => pooled.stateOf[j]!),
            run: rows.map((j) => pooled.runOf[j]!),
            observed: rows.map((j) => pooled.observed[j]!),
          },
          EVENT_TYPES.length,
          EVENT_TYPES.indexOf(options.majorityClass),
        ),
        12,
      );
      const output = pooled.outputs[1]!;
      const unread = rows.filter((j) => pooled.unread[j] === 1);
      const figure = scores.predictors[1]!.otherRunsFamilies.find((f) => f.name === family.family);
      if (unread.length === 0) {
        expect(figure).toBeUndefined();
        continue;
      }
      const credit = unread.map((j) => {
        const s = pooled.stateOf[j]!;
        return tieCredit(Array.from(output.probabilities.subarray(s * K, (s + 1) * K)), pooled.observed[j]!);
      });
      expect(figure!.accuracy.estimate).toBeCloseTo(credit.reduce((a, b) => a + b, 0) / unread.length, 12);
    }
    const largest = Math.max(
      ...Array.from(new Set(pooled.programOf), (p) => pooled.programOf.filter((x) => x === p).length),
    );
    expect(scores.concentration.largestShare).toBeCloseTo(largest / pooled.stateOf.length, 12);
  });

  it("agrees with it under program clusters, without thresholds and with a fold that holds no sample", () => {
    const few = poolFolds([folds[0]!, { ...folds[1]!, thresholds: undefined }].map(foldColumns));
    // Two families: intervals resample programs.
    const byProgram = { ...options, folds: 3, familyOf: (p: string) => p.slice(0, p.indexOf("/")) };
    const scores = crossValidationScores(few, byProgram);
    expect(scores.clusterUnit.unit).toBe("program");
    expect(scores.predictors[0]!.foldAccuracy[2]).toBeNaN();
    expect(former(scores)).toStrictEqual(crossValidationScoresBefore(few, byProgram));
  });

  it("agrees with it when the reference is missing and every sample is from the run read", () => {
    const read = folds.map((f) => ({
      ...f,
      samples: f.samples.filter((s) => s.runId === f.states.find((t) => t.id === s.stateId)!.representative.runId),
      outputs: f.outputs.filter((o) => o.name !== "ngram-ctx:4"),
    }));
    const only = poolFolds(read.map(foldColumns));
    const scores = crossValidationScores(only, options);
    expect(scores.againstReference).toEqual([]);
    expect(scores.predictors[0]!.otherRunsAccuracy.estimate).toBeNaN();
    expect(former(scores)).toStrictEqual(crossValidationScoresBefore(only, options));
  });
});

describe("the paired comparison from sums", () => {
  const random = seededRandom(7);
  const programs = Array.from({ length: 500 }, () => `p${Math.floor(random() * 23)}`);
  const groups = programs.map((p) => `f${Number(p.slice(1)) % 19}`);
  const a = programs.map(() => [0, 1, 0.5, 1 / 3][Math.floor(random() * 4)]!);
  const b = programs.map(() => [0, 1, 0.5][Math.floor(random() * 3)]!);

  it("the sign-flip test of per-cluster differences is the test of the items", () => {
    const { clusterOf, sizes } = clusterIndex(groups);
    const d = new Float64Array(sizes.length);
    a.forEach((x, i) => (d[clusterOf[i]!]! += x - b[i]!));
    expect(clusterSignFlipTestOfSums(d, a.length, { seed: 3 })).toStrictEqual(
      clusterSignFlipTest(groups, a, b, { seed: 3 }),
    );
    expect(clusterSignFlipTestOfSums(d.subarray(0, 4), a.length).method).toBe("exact");
  });

  it("program accuracies and leads from per-program sums are those of the samples", () => {
    const sums = (credit: readonly number[]) => {
      const bySum = new Map<string, { program: string; samples: number; credit: number }>();
      programs.forEach((program, i) => {
        const s = bySum.get(program) ?? { program, samples: 0, credit: 0 };
        s.samples++;
        s.credit += credit[i]!;
        bySum.set(program, s);
      });
      return [...bySum.values()];
    };
    expect(programAccuracyOfSums(sums(a))).toStrictEqual(programAccuracy(programs, a));
    const leads = programLeadsOfSums(sums(a), [...sums(b)].reverse());
    expect(leads).toStrictEqual(programLeads(programs, a, b));
    expect(leads.aAhead + leads.bAhead).toBeGreaterThan(0);
  });
});
