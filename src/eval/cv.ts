// Leave-family-out cross-validation, the pure core: families dealt into K folds balanced by
// sample count, fold predictions pooled, and the CV scoreboard of the pooled folds from the
// metric functions evaluate() uses (intervals resample families), with the coverage of
// split-conformal prediction sets calibrated per fold. The stage that trains the fold
// students and predicts is src/cv (it sits above train and eval).

import { createHash } from "node:crypto";
import { UsageError } from "../errors.js";
import { ceilingAccuracy, leaveOneRunOutCeilingOfColumns, type Abstraction, type State } from "../dataset/index.js";
import { EVENT_TYPES, type EventType } from "../core/index.js";
import { compare } from "./compare.js";
import { EvaluationInputError } from "./errors.js";
import { chooseClusters } from "./evaluate.js";
import {
  type BootstrapInterval,
  type BootstrapOptions,
  brierScore,
  classScores,
  clusterBootstrapMeanDifference,
  clusterBootstrapMeanDifferenceOfSums,
  conformalThreshold,
  confusionMatrix,
  expectedCalibrationErrorOfBins,
  overconfidenceOfBins,
  reliabilityBins,
  expectedCalibrationErrorInterval,
  labelScore,
  macroF1,
  majorityAccuracy,
  negativeLogLikelihood,
  predictionSet,
  tieCredit,
} from "../metrics/index.js";
import type { ClusterUnit, EvaluationSample, PredictorOutput, ProgramLeads, SampleScores } from "./types.js";

/** The in-context n-gram every other predictor is compared with, pair by pair (docs/training.md). */
export const CV_REFERENCE = "ngram-ctx:4";

/** Folds when `--cv` is given without a number. */
export const DEFAULT_CV_FOLDS = 5;

/** Target coverage of the conformal prediction sets CV reports. */
export const CONFORMAL_COVERAGE = 0.9;

/** A family and the samples its programs contribute under the evaluated abstraction. */
export interface FamilyWeight {
  readonly family: string;
  readonly samples: number;
}

/** Families per fold. Invariant: every family given is in exactly one fold; no fold is empty. */
export interface FoldAssignment {
  readonly k: number;
  readonly seed: number;
  /** Family names of each fold, sorted. */
  readonly folds: readonly (readonly string[])[];
  /** Samples of each fold (sum of its families' weights). */
  readonly samples: readonly number[];
}

const rank = (seed: number, name: string): string => createHash("sha256").update(`cv\0${seed}\0${name}`).digest("hex");

/**
 * Deals `families` into `k` folds, largest first, each to the fold with the fewest samples so
 * far (then the fewest families, then the lowest index): the longest-processing-time rule, so
 * the heaviest fold exceeds the lightest by at most the largest family's weight. The seed orders families of
 * equal weight (by sha256(seed, family)); the same families, weights and seed give the same folds.
 *
 * @example assignFolds([{ family: "a", samples: 5 }, { family: "b", samples: 3 }, { family: "c", samples: 2 }], 2, 1).folds // => [["a"], ["b", "c"]]
 */
export function assignFolds(families: readonly FamilyWeight[], k: number, seed: number): FoldAssignment {
  if (!Number.isInteger(k) || k < 2) throw new UsageError(`--cv needs at least 2 folds, got ${k}`, "Pass e.g. --cv 5.");
  const distinct = new Set(families.map((f) => f.family));
  if (distinct.size !== families.length)
    throw new UsageError("a family is listed twice in the fold assignment", "Aggregate the samples per family first.");
  if (families.length < k) {
    throw new UsageError(
      `--cv ${k} needs at least ${k} families, the corpus has ${families.length}`,
      `Pass --cv ${Math.max(2, families.length)} or fewer folds, or collect programs of more families.`,
    );
  }
  const ordered = [...families].sort(
    (a, b) => b.samples - a.samples || (rank(seed, a.family) < rank(seed, b.family) ? -1 : 1),
  );
  const folds: string[][] = Array.from({ length: k }, () => []);
  const samples = new Array<number>(k).fill(0);
  for (const f of ordered) {
    let best = 0;
    for (let i = 1; i < k; i++) {
      if (samples[i]! < samples[best]! || (samples[i] === samples[best] && folds[i]!.length < folds[best]!.length))
        best = i;
    }
    folds[best]!.push(f.family);
    samples[best]! += f.samples;
  }
  return { k, seed, folds: folds.map((f) => [...f].sort()), samples };
}

/** How families are dealt into folds: balanced by samples, or one fold per source. */
export const FOLD_GROUPINGS = ["family", "source"] as const;
export type FoldGrouping = (typeof FOLD_GROUPINGS)[number];

/** A family's source: the first segment of its name ("kernels/abba" → "kernels"; "realcode" → itself). */
export function sourceOf(family: string): string {
  const slash = family.indexOf("/");
  return slash < 0 ? family : family.slice(0, slash);
}

/**
 * One fold per source (sourceOf), sources in name order: each fold tests code whose source no
 * training program shares — a shift like that from one corpus to another, inside one corpus.
 *
 * @example
 * foldsBySource([{ family: "a/x", samples: 5 }, { family: "b/y", samples: 3 }, { family: "a/z", samples: 2 }], 1).folds
 * // => [["a/x", "a/z"], ["b/y"]]
 */
export function foldsBySource(families: readonly FamilyWeight[], seed: number): FoldAssignment {
  const sources = [...new Set(families.map((f) => sourceOf(f.family)))].sort();
  if (sources.length < 2)
    throw new UsageError(
      `--cv-by source needs at least 2 sources (first path segments of the families), the corpus has ${sources.length}`,
      "Collect programs from more than one top-level directory, or use --cv-by family.",
    );
  const folds = sources.map((s) =>
    families
      .filter((f) => sourceOf(f.family) === s)
      .map((f) => f.family)
      .sort(),
  );
  const samples = sources.map((s) =>
    families.filter((f) => sourceOf(f.family) === s).reduce((a, f) => a + f.samples, 0),
  );
  return { k: sources.length, seed, folds, samples };
}

/** Sample counts per family, from the family of each sample's program. */
export function familyWeights(programs: readonly string[], familyOf: (program: string) => string): FamilyWeight[] {
  const counts = new Map<string, number>();
  for (const p of programs) counts.set(p, (counts.get(p) ?? 0) + 1);
  return familyWeightsOfCounts(
    [...counts].map(([name, samples]) => ({ name, samples })),
    familyOf,
  );
}

/**
 * Sample counts per family, from each program's sample count (familyWeights without a list of
 * every sample). Programs without samples put no family in.
 *
 * @example familyWeightsOfCounts([{ name: "k/a/x", samples: 2 }, { name: "k/b/y", samples: 0 }], (p) => p.slice(0, 3)) // => [{ family: "k/a", samples: 2 }]
 */
export function familyWeightsOfCounts(
  programs: readonly { readonly name: string; readonly samples: number }[],
  familyOf: (program: string) => string,
): FamilyWeight[] {
  const counts = new Map<string, number>();
  for (const p of programs) {
    if (p.samples === 0) continue;
    const f = familyOf(p.name);
    counts.set(f, (counts.get(f) ?? 0) + p.samples);
  }
  return [...counts].map(([family, samples]) => ({ family, samples })).sort((a, b) => (a.family < b.family ? -1 : 1));
}

/** One fold's test side and every predictor's answers on it (aligned with its states). */
export interface FoldPredictions {
  readonly fold: number;
  readonly states: readonly State[];
  readonly samples: readonly EvaluationSample[];
  readonly outputs: readonly PredictorOutput[];
  /**
   * Per predictor, the split-conformal threshold t̂ (conformalThreshold at CONFORMAL_COVERAGE)
   * of its LAC scores on held-out calibration families of this fold (the validation families,
   * never the test fold); +∞ when the set must hold every event. Absent: no conformal sets.
   */
  readonly thresholds?: Readonly<Record<string, number>>;
}

/**
 * The calibration scores of one predictor on held-out states: for every event a state saw,
 * the LAC score 1 − q(event), weighted by how many samples saw it (conformalThreshold's input).
 *
 * @example conformalCalibrationScores([state with counts GoStart 3, GoEnd 1],
 *   [{ probabilities: [0, 0.75, 0, 0, 0, 0.25] }]) // => { scores: [0.25, 0.75], weights: [3, 1] }
 */
export function conformalCalibrationScores(
  states: readonly State[],
  predictions: readonly { readonly probabilities: readonly number[] }[],
): { scores: number[]; weights: number[] } {
  if (states.length !== predictions.length)
    throw new RangeError(`conformalCalibrationScores: ${predictions.length} predictions for ${states.length} states`);
  const scores: number[] = [];
  const weights: number[] = [];
  states.forEach((s, i) => {
    EVENT_TYPES.forEach((e, k) => {
      const n = s.counts[e];
      if (n > 0) {
        scores.push(labelScore(predictions[i]!.probabilities, k));
        weights.push(n);
      }
    });
  });
  return { scores, weights };
}

/** conformalThreshold of a predictor's answers on held-out calibration states, at CONFORMAL_COVERAGE. */
export function conformalThresholdOfStates(
  states: readonly State[],
  predictions: readonly { readonly probabilities: readonly number[] }[],
  coverage = CONFORMAL_COVERAGE,
): number {
  const { scores, weights } = conformalCalibrationScores(states, predictions);
  return conformalThreshold(scores, coverage, weights);
}

/** One predictor's answers on a fold's states as a column: states × EVENT_TYPES.length probabilities, row-major. */
export interface ProbabilityColumn {
  readonly name: string;
  readonly configHash: string;
  readonly probabilities: Float64Array;
}

/** States and their samples in typed columns (one fold's, or the pooled folds'). */
export interface StateSampleColumns {
  /** How many states. */
  readonly states: number;
  /** Event counts of each state, states × EVENT_TYPES.length, row-major. */
  readonly counts: Float64Array;
  /** Per sample: index of its state. */
  readonly stateOf: Int32Array;
  /** Per sample: index in EVENT_TYPES of its observed next event. */
  readonly observed: Uint8Array;
  /** Per sample: its run id. */
  readonly runOf: Float64Array;
  /** Per sample: 1 when its run is not the one its state's representative prefix was read from. */
  readonly unread: Uint8Array;
  /** Per sample: index of its program in `programNames`. */
  readonly programOf: Int32Array;
  readonly programNames: readonly string[];
}

/**
 * One fold reduced to what the pooled scoring reads, in typed columns: no states, prefixes (which
 * hold their runs' records) or prediction objects, so a CV run holds every fold's answers at a
 * few dozen bytes per state and sample while it loads and trains the next fold.
 */
export interface FoldColumns extends StateSampleColumns {
  readonly fold: number;
  readonly outputs: readonly ProbabilityColumn[];
  /** As FoldPredictions.thresholds. */
  readonly thresholds?: Readonly<Record<string, number>>;
}

const K = EVENT_TYPES.length;

const sampleProgram = (s: EvaluationSample): string => ("program" in s ? s.program : s.prefix.program);
const sampleRun = (s: EvaluationSample): number => ("runId" in s ? s.runId : s.prefix.runId);

/**
 * One predictor's answers on `states` states as a column (the probabilities copied exactly, as
 * float64); a RangeError when the counts differ.
 */
export function probabilityColumn(output: PredictorOutput, states: number, fold: number): ProbabilityColumn {
  if (output.predictions.length !== states)
    throw new RangeError(
      `poolFolds: ${output.name} gave ${output.predictions.length} predictions for ${states} states in fold ${fold}`,
    );
  const probabilities = new Float64Array(states * K);
  output.predictions.forEach((p, i) => {
    for (let k = 0; k < K; k++) probabilities[i * K + k] = p.probabilities[k] ?? 0;
  });
  return { name: output.name, configHash: output.configHash, probabilities };
}

/** A fold's test side with its answers already in columns (what CV keeps of a fold while it predicts). */
export interface FoldAnswers extends Omit<FoldPredictions, "outputs"> {
  readonly outputs: readonly ProbabilityColumn[];
}

/** A fold's states, samples and answers as columns. */
export function foldColumns(fold: FoldPredictions): FoldColumns {
  return foldColumnsOf({
    ...fold,
    outputs: fold.outputs.map((o) => probabilityColumn(o, fold.states.length, fold.fold)),
  });
}

/** foldColumns of a fold whose answers are columns already. */
export function foldColumnsOf(fold: FoldAnswers): FoldColumns {
  const n = fold.states.length;
  const index = new Map<string, number>();
  const counts = new Float64Array(n * K);
  fold.states.forEach((s, i) => {
    index.set(s.id, i);
    EVENT_TYPES.forEach((e, k) => (counts[i * K + k] = s.counts[e]));
  });
  const m = fold.samples.length;
  const stateOf = new Int32Array(m);
  const observed = new Uint8Array(m);
  const runOf = new Float64Array(m);
  const unread = new Uint8Array(m);
  const programOf = new Int32Array(m);
  const programIndex = new Map<string, number>();
  fold.samples.forEach((s, j) => {
    const i = index.get(s.stateId);
    if (i === undefined)
      throw new EvaluationInputError(
        `sample of state ${fold.fold}:${s.stateId} has no matching state`,
        "Pool the states and samples of the same folds.",
      );
    stateOf[j] = i;
    observed[j] = EVENT_TYPES.indexOf(s.next);
    runOf[j] = sampleRun(s);
    unread[j] = runOf[j] === fold.states[i].representative.runId ? 0 : 1;
    const program = sampleProgram(s);
    let p = programIndex.get(program);
    if (p === undefined) programIndex.set(program, (p = programIndex.size));
    programOf[j] = p;
  });
  for (const output of fold.outputs)
    if (output.probabilities.length !== n * K)
      throw new RangeError(
        `poolFolds: ${output.name} gave ${output.probabilities.length / K} predictions for ${n} states in fold ${fold.fold}`,
      );
  return {
    fold: fold.fold,
    states: n,
    counts,
    stateOf,
    observed,
    runOf,
    unread,
    programOf,
    programNames: [...programIndex.keys()],
    outputs: fold.outputs,
    ...(fold.thresholds === undefined ? {} : { thresholds: fold.thresholds }),
  };
}

/** The folds as one evaluation input: the columns concatenated, state indices offset past the earlier folds' states. */
export interface PooledFolds extends StateSampleColumns {
  /** Per pooled sample: its fold (position in the folds given); state indices are offset past the earlier folds' states. */
  readonly foldOf: Int32Array;
  /** One column per predictor that answered in every fold, in the order of the first fold. */
  readonly outputs: ProbabilityColumn[];
  /** Predictors missing from some fold (failed there): left out of the pooled evaluation. */
  readonly incomplete: string[];
  /** Per predictor with a conformal threshold in every fold: t̂ of each fold, in fold order. */
  readonly thresholds: Map<string, number[]>;
}

/**
 * Concatenates the folds. A state of one fold never matches a state of another: under a pooled
 * abstraction one state id can be tested in two folds with different counts and predictions,
 * so each fold's states get indices of their own. A predictor's configHash in the pooled output
 * is the hash of its per-fold hashes.
 */
export function poolFolds(folds: readonly FoldColumns[]): PooledFolds {
  const names = folds.length === 0 ? [] : folds[0]!.outputs.map((o) => o.name);
  const complete = names.filter((n) => folds.every((f) => f.outputs.some((o) => o.name === n)));
  const incomplete = [...new Set(folds.flatMap((f) => f.outputs.map((o) => o.name)))].filter(
    (n) => !complete.includes(n),
  );
  const states = folds.reduce((sum, f) => sum + f.states, 0);
  const samples = folds.reduce((sum, f) => sum + f.stateOf.length, 0);
  const counts = new Float64Array(states * K);
  const stateOf = new Int32Array(samples);
  const observed = new Uint8Array(samples);
  const runOf = new Float64Array(samples);
  const unread = new Uint8Array(samples);
  const programOf = new Int32Array(samples);
  const foldOf = new Int32Array(samples);
  const programIndex = new Map<string, number>();
  const probabilities = new Map(complete.map((n) => [n, new Float64Array(states * K)]));
  const hashes = new Map(complete.map((n) => [n, createHash("sha256")]));
  let stateOffset = 0;
  let sampleOffset = 0;
  folds.forEach((fold, f) => {
    counts.set(fold.counts, stateOffset * K);
    const programs = fold.programNames.map((p) => {
      let i = programIndex.get(p);
      if (i === undefined) programIndex.set(p, (i = programIndex.size));
      return i;
    });
    for (let j = 0; j < fold.stateOf.length; j++) {
      stateOf[sampleOffset + j] = stateOffset + fold.stateOf[j]!;
      programOf[sampleOffset + j] = programs[fold.programOf[j]!]!;
      foldOf[sampleOffset + j] = f;
    }
    observed.set(fold.observed, sampleOffset);
    runOf.set(fold.runOf, sampleOffset);
    unread.set(fold.unread, sampleOffset);
    for (const name of complete) {
      const output = fold.outputs.find((o) => o.name === name)!;
      probabilities.get(name)!.set(output.probabilities, stateOffset * K);
      hashes.get(name)!.update(`${fold.fold}=${output.configHash};`);
    }
    stateOffset += fold.states;
    sampleOffset += fold.stateOf.length;
  });
  const outputs = complete.map((name) => ({
    name,
    configHash: hashes.get(name)!.digest("hex").slice(0, 16),
    probabilities: probabilities.get(name)!,
  }));
  const thresholds = new Map<string, number[]>();
  for (const name of complete) {
    const t = folds.map((f) => f.thresholds?.[name]);
    if (t.every((x): x is number => x !== undefined)) thresholds.set(name, t);
  }
  return {
    states,
    counts,
    stateOf,
    observed,
    runOf,
    unread,
    programOf,
    programNames: [...programIndex.keys()],
    foldOf,
    outputs,
    incomplete,
    thresholds,
  };
}

/** One predictor's CV scores, pooled over the folds. */
export interface CrossValidatedPredictor {
  readonly name: string;
  /** Tie-credit accuracy with its family-bootstrap 95 % interval (as evaluate() computes it). */
  readonly accuracy: BootstrapInterval;
  /**
   * The same on the samples of the runs the predictor did not read (PredictorEvaluation's
   * otherRunsAccuracy): independent of the runs per program, bounded by the leave-one-run-out ceiling.
   */
  readonly otherRunsAccuracy: BootstrapInterval;
  /** ECE, mean confidence − accuracy and NLL on the same samples. */
  readonly otherRunsEce: BootstrapInterval;
  readonly otherRunsOverconfidence: number;
  readonly otherRunsNll: BootstrapInterval;
  /**
   * The mean over clusters (families) of each cluster's accuracy, with its cluster-bootstrap
   * interval: every family counts once, whatever its sample count — the estimate for a new
   * family of code, where the pooled accuracy is led by the families with the longest runs.
   */
  readonly clusterMeanAccuracy: BootstrapInterval;
  readonly ece: BootstrapInterval;
  /** Mean confidence − accuracy (overconfidenceOfBins): > 0 over-confident, < 0 under-confident. */
  readonly overconfidence: number;
  /** Mean NLL (nats) with its interval, on the same resamples as the accuracy interval. */
  readonly nll: BootstrapInterval;
  readonly brier: number;
  readonly macroF1: number;
  /** Recall of each event (NaN when it never occurred), with tie credit. */
  readonly recall: Readonly<Record<EventType, number>>;
  /**
   * Leave-one-run-out ceiling − accuracy on the other runs (the room left, as a fraction): the
   * ceiling scores every sample against the runs it is not from, as otherRunsAccuracy does; the
   * pooled accuracy also scores the run the predictor read, which its own prefix predicts far better.
   */
  readonly gapToCeilingLoo: number;
  /** Accuracy on the other runs / leave-one-run-out ceiling. */
  readonly shareOfCeilingLoo: number;
  /** Accuracy in each fold (same order as the folds). */
  readonly foldAccuracy: readonly number[];
  /** Accuracy on each cluster (family) with its sample count, in cluster-name order: where a predictor wins or loses. */
  readonly clusterAccuracy: readonly {
    readonly cluster: string;
    readonly samples: number;
    readonly accuracy: number;
  }[];
  /** Split-conformal prediction sets, calibrated per fold on held-out families; null without thresholds. */
  readonly conformal: ConformalScores | null;
}

/** How split-conformal prediction sets did on the pooled test folds. */
export interface ConformalScores {
  /** The coverage the sets were calibrated for (CONFORMAL_COVERAGE). */
  readonly target: number;
  /** Share of test samples whose observed next event is in the set, with its family interval. */
  readonly coverage: BootstrapInterval;
  /** Mean number of events in the set (1: a point prediction; 6: no information), same resamples. */
  readonly setSize: BootstrapInterval;
  /** t̂ of each fold: the set holds the events with probability ≥ 1 − t̂ (+∞: every event). */
  readonly foldThresholds: readonly number[];
}

/** accuracy(A) − accuracy(reference), paired on the same samples, family-bootstrapped. */
export interface ReferenceDifference {
  readonly predictor: string;
  readonly reference: string;
  readonly difference: BootstrapInterval;
  /** Two-sided p-value of the cluster sign-flip test. */
  readonly p: number;
  /** The paired difference of the cluster-mean accuracies (every family once), cluster-bootstrapped. */
  readonly clusterMeanDifference: BootstrapInterval;
  /** Program by program (A the predictor, B the reference): where either leads by more than the margin. */
  readonly programLeads: ProgramLeads;
}

/** The CV scoreboard of one abstraction. */
export interface CrossValidationScores {
  readonly clusterUnit: ClusterUnit;
  readonly samples: number;
  readonly states: number;
  readonly programs: number;
  /** In-sample and leave-one-run-out ceilings of the pooled test states. */
  readonly ceiling: number;
  readonly ceilingLoo: number;
  /** Accuracy of always predicting `majorityClass`. */
  readonly majority: number;
  readonly majorityClass: EventType;
  readonly predictors: readonly CrossValidatedPredictor[];
  readonly againstReference: readonly ReferenceDifference[];
}

export interface ScoreOptions {
  readonly abstraction: Abstraction;
  readonly familyOf: (program: string) => string;
  /** The training folds' majority class: the majority baseline and the LOO ceiling's fallback. */
  readonly majorityClass: EventType;
  readonly folds: number;
  readonly bootstrap?: BootstrapOptions;
  readonly reference?: string;
}

/** The indices of the samples with each key, in sample order. */
function samplesBy<T>(keys: ArrayLike<T>): Map<T, number[]> {
  const groups = new Map<T, number[]>();
  for (let i = 0; i < keys.length; i++) {
    const members = groups.get(keys[i]!);
    if (members === undefined) groups.set(keys[i]!, [i]);
    else members.push(i);
  }
  return groups;
}

/** Rows of a states × EVENT_TYPES.length column, one array per state (what the metric functions take). */
function rowsOf(column: Float64Array, states: number): number[][] {
  return Array.from({ length: states }, (_, i) => Array.from(column.subarray(i * K, (i + 1) * K)));
}

/**
 * The scoreboard of the pooled folds, from the same metric functions evaluate() uses (tie
 * credit, binned ECE and its cluster interval, NLL, Brier, the ceilings of ceiling.ts, compare()
 * for the paired differences), over the same clusters (chooseClusters: families). It skips
 * evaluate()'s entropy correlation, whose bootstrap re-sorts every state per resample: too slow
 * for a pooled corpus (docs/metrics.md, "Leave-family-out cross-validation"). Intervals of accuracy, ECE
 * and NLL share one seed and clusters, hence their resamples; each difference is predictor −
 * reference. Per-sample probability rows exist for one predictor at a time.
 */
export function crossValidationScores(pooled: PooledFolds, options: ScoreOptions): CrossValidationScores {
  const reference = options.reference ?? CV_REFERENCE;
  const bootstrap = options.bootstrap ?? {};
  const stateOf = pooled.stateOf;
  const observed = Array.from(pooled.observed);
  const foldOfSample = pooled.foldOf;
  const programs = Array.from(pooled.programOf, (p) => pooled.programNames[p]!);
  const { of: clusterOf, unit: clusterUnit } = chooseClusters(programs, options.familyOf);
  const clusters = programs.map(clusterOf);
  const majority = EVENT_TYPES.indexOf(options.majorityClass);
  const zeros = observed.map(() => 0);
  const byFold = samplesBy(foldOfSample);
  const foldRows = Array.from({ length: options.folds }, (_, f) => byFold.get(f) ?? []);
  const clusterRows = samplesBy(clusters);
  const unreadRows: number[] = [];
  for (let i = 0; i < observed.length; i++) if (pooled.unread[i] === 1) unreadRows.push(i);
  const clusterNames = [...clusterRows.keys()].sort();
  const ceilingLoo = leaveOneRunOutCeilingOfColumns(
    { state: stateOf, run: pooled.runOf, observed: pooled.observed },
    EVENT_TYPES.length,
    majority,
  );
  const credits = new Map<string, number[]>();
  const clusterMeans = new Map<string, Float64Array>();
  const ones = new Float64Array(clusterNames.length).fill(1);
  const noClusterMean = new Float64Array(clusterNames.length);
  const predictors = pooled.outputs.map((output): CrossValidatedPredictor => {
    const rows = rowsOf(output.probabilities, pooled.states);
    const q = Array.from(stateOf, (i) => rows[i]!);
    const credit = q.map((p, i) => tieCredit(p, observed[i]!));
    credits.set(output.name, credit);
    const bins = reliabilityBins(q, observed);
    const nll = observed.map((y, i) => negativeLogLikelihood([q[i]!], [y]));
    const scores = classScores(confusionMatrix(q, observed, EVENT_TYPES.length));
    // Accuracy is the mean tie credit (metrics' accuracy()), over all samples or a group of them.
    const meanCredit = (members: readonly number[]): number =>
      members.reduce((sum, i) => sum + credit[i]!, 0) / members.length;
    const otherRuns = otherRunsScores(unreadRows, clusters, q, observed, credit, nll, bootstrap);
    const byCluster = clusterNames.map((cluster) => {
      const members = clusterRows.get(cluster)!;
      return { cluster, samples: members.length, accuracy: meanCredit(members) };
    });
    const clusterMean = Float64Array.from(byCluster, (c) => c.accuracy);
    clusterMeans.set(output.name, clusterMean);
    return {
      name: output.name,
      accuracy: clusterBootstrapMeanDifference(clusters, credit, zeros, bootstrap),
      ...otherRuns,
      clusterMeanAccuracy: clusterBootstrapMeanDifferenceOfSums(ones, clusterMean, noClusterMean, bootstrap),
      ece: {
        ...expectedCalibrationErrorInterval(clusters, q, observed, bootstrap),
        estimate: expectedCalibrationErrorOfBins(bins, observed.length),
      },
      overconfidence: overconfidenceOfBins(bins),
      nll: clusterBootstrapMeanDifference(clusters, nll, zeros, bootstrap),
      brier: brierScore(q, observed),
      macroF1: macroF1(scores),
      recall: Object.fromEntries(EVENT_TYPES.map((e, k) => [e, scores[k]!.recall])) as Record<EventType, number>,
      gapToCeilingLoo: ceilingLoo - otherRuns.otherRunsAccuracy.estimate,
      shareOfCeilingLoo: otherRuns.otherRunsAccuracy.estimate / ceilingLoo,
      foldAccuracy: foldRows.map(meanCredit),
      clusterAccuracy: byCluster,
      conformal: conformalScores(
        pooled.thresholds.get(output.name),
        q,
        observed,
        foldOfSample,
        clusters,
        zeros,
        bootstrap,
      ),
    };
  });
  const sampleScores = (name: string): SampleScores => ({
    name,
    abstraction: options.abstraction,
    holdout: "cv",
    clusters,
    clusterUnit,
    programs,
    credit: credits.get(name)!,
  });
  const againstReference: ReferenceDifference[] = credits.has(reference)
    ? pooled.outputs
        .filter((o) => o.name !== reference)
        .map((o) => {
          const c = compare(sampleScores(o.name), sampleScores(reference), bootstrap);
          return {
            predictor: o.name,
            reference,
            difference: c.difference,
            p: c.clusterTest.pValue,
            programLeads: c.programLeads,
            clusterMeanDifference: clusterBootstrapMeanDifferenceOfSums(
              ones,
              clusterMeans.get(o.name)!,
              clusterMeans.get(reference)!,
              bootstrap,
            ),
          };
        })
    : [];
  return {
    clusterUnit,
    samples: observed.length,
    states: pooled.states,
    programs: new Set(programs).size,
    ceiling: ceilingAccuracy(rowsOf(pooled.counts, pooled.states)),
    ceilingLoo,
    majority: majorityAccuracy(observed, majority),
    majorityClass: options.majorityClass,
    predictors,
    againstReference,
  };
}

/** Accuracy, ECE and NLL on the samples `rows` (those of the runs the predictor did not read), with their intervals. */
function otherRunsScores(
  rows: readonly number[],
  clusters: readonly string[],
  q: readonly (readonly number[])[],
  observed: readonly number[],
  credit: readonly number[],
  nll: readonly number[],
  bootstrap: BootstrapOptions,
): Pick<CrossValidatedPredictor, "otherRunsAccuracy" | "otherRunsEce" | "otherRunsOverconfidence" | "otherRunsNll"> {
  const groups = rows.map((i) => clusters[i]!);
  const zeros = rows.map(() => 0);
  const rq = rows.map((i) => q[i]!);
  const ro = rows.map((i) => observed[i]!);
  const bins = reliabilityBins(rq, ro);
  return {
    otherRunsAccuracy: clusterBootstrapMeanDifference(
      groups,
      rows.map((i) => credit[i]!),
      zeros,
      bootstrap,
    ),
    otherRunsEce: {
      ...expectedCalibrationErrorInterval(groups, rq, ro, bootstrap),
      estimate: expectedCalibrationErrorOfBins(bins, rows.length),
    },
    otherRunsOverconfidence: overconfidenceOfBins(bins),
    otherRunsNll: clusterBootstrapMeanDifference(
      groups,
      rows.map((i) => nll[i]!),
      zeros,
      bootstrap,
    ),
  };
}

/** Coverage and set size of each pooled sample's set, under its own fold's threshold. */
function conformalScores(
  thresholds: readonly number[] | undefined,
  q: readonly (readonly number[])[],
  observed: readonly number[],
  foldOfSample: Int32Array,
  clusters: readonly string[],
  zeros: readonly number[],
  bootstrap: BootstrapOptions,
): ConformalScores | null {
  if (thresholds === undefined) return null;
  const covered = q.map((p, i) => (labelScore(p, observed[i]!) <= thresholds[foldOfSample[i]!]! ? 1 : 0));
  const size = q.map((p, i) => predictionSet(p, thresholds[foldOfSample[i]!]!).length);
  return {
    target: CONFORMAL_COVERAGE,
    coverage: clusterBootstrapMeanDifference(clusters, covered, zeros, bootstrap),
    setSize: clusterBootstrapMeanDifference(clusters, size, zeros, bootstrap),
    foldThresholds: thresholds,
  };
}

/**
 * The class most folds' training sides call the majority (ties: the one with more training
 * samples behind it), used for the pooled majority baseline and the ceiling's fallback.
 */
export function pooledMajorityClass(
  perFold: readonly { readonly majority: EventType; readonly trainingSamples: number }[],
): EventType | undefined {
  const votes = new Map<EventType, { folds: number; samples: number }>();
  for (const f of perFold) {
    const v = votes.get(f.majority) ?? { folds: 0, samples: 0 };
    votes.set(f.majority, { folds: v.folds + 1, samples: v.samples + f.trainingSamples });
  }
  let best: EventType | undefined;
  for (const [event, v] of votes) {
    const b = best === undefined ? undefined : votes.get(best)!;
    if (b === undefined || v.folds > b.folds || (v.folds === b.folds && v.samples > b.samples)) best = event;
  }
  return best;
}
