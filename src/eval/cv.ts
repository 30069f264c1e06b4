// Leave-family-out cross-validation, the pure core: families dealt into K folds balanced by
// sample count, fold predictions pooled, and the CV scoreboard of the pooled folds from the
// metric functions evaluate() uses (intervals resample families), with the coverage of
// split-conformal prediction sets calibrated per fold. The stage that trains the fold
// students and predicts is src/cv (it sits above train and eval).

import { createHash } from "node:crypto";
import { UsageError } from "../errors.js";
import { ceilingAccuracy, leaveOneRunOutCredits, type Abstraction, type State } from "../dataset/index.js";
import { EVENT_TYPES, type EventType } from "../core/index.js";
import { programLeadsOfSums, type ProgramCredit } from "./compare.js";
import { EvaluationInputError } from "./errors.js";
import { chooseClusters, topLabelColumns, type TopLabelColumns } from "./evaluate.js";
import {
  addProgramSample,
  emptyProgramSums,
  familyFigures,
  sampleConcentration,
  weightedFigures,
  type FamilyFigure,
  type ProgramSums,
  type SampleConcentration,
  type WeightedFigures,
} from "./weighted.js";
import {
  type BootstrapInterval,
  type BootstrapOptions,
  type CalibrationCells,
  type ReliabilityBin,
  calibrationBin,
  classScores,
  clusterBootstrapMeanDifferenceOfSums,
  clusterSignFlipTestOfSums,
  conformalThreshold,
  DEFAULT_CALIBRATION_BINS,
  expectedCalibrationErrorIntervalOfCells,
  expectedCalibrationErrorOfBins,
  labelScore,
  macroF1,
  majorityAccuracy,
  overconfidenceOfBins,
  PROBABILITY_FLOOR,
  predictionSetSize,
  reliabilityBinsOfSums,
} from "../metrics/index.js";
import type { ClusterUnit, EvaluationSample, PredictorOutput, ProgramLeads } from "./types.js";

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
  const { partOf, probabilities, ...columns } = concatColumns(folds, complete);
  const outputs = complete.map((name) => {
    const hash = createHash("sha256");
    for (const fold of folds) hash.update(`${fold.fold}=${fold.outputs.find((o) => o.name === name)!.configHash};`);
    return { name, configHash: hash.digest("hex").slice(0, 16), probabilities: probabilities.get(name)! };
  });
  const thresholds = new Map<string, number[]>();
  for (const name of complete) {
    const t = folds.map((f) => f.thresholds?.[name]);
    if (t.every((x): x is number => x !== undefined)) thresholds.set(name, t);
  }
  return { ...columns, foldOf: partOf, outputs, incomplete, thresholds };
}

/**
 * One fold's columns from those of its parts (its test programs, loaded and predicted one at a
 * time), in order: when no state spans two parts (an abstraction that does not pool programs),
 * foldColumnsOf of the parts' states and samples concatenated. `answered` are the predictors
 * whose column every part holds.
 */
export function joinFoldColumns(
  fold: number,
  parts: readonly FoldColumns[],
  answered: readonly { readonly name: string; readonly configHash: string }[],
  thresholds?: Readonly<Record<string, number>>,
): FoldColumns {
  const {
    partOf: _,
    probabilities,
    ...columns
  } = concatColumns(
    parts,
    answered.map((a) => a.name),
  );
  return {
    fold,
    ...columns,
    outputs: answered.map(({ name, configHash }) => ({ name, configHash, probabilities: probabilities.get(name)! })),
    ...(thresholds === undefined ? {} : { thresholds }),
  };
}

/**
 * The parts' columns one after the other: each part's state indices offset past the earlier
 * parts' states, programs numbered in order of first appearance, and the column of each of
 * `names` (which every part must hold).
 */
function concatColumns(
  parts: readonly FoldColumns[],
  names: readonly string[],
): StateSampleColumns & { readonly partOf: Int32Array; readonly probabilities: Map<string, Float64Array> } {
  const states = parts.reduce((sum, f) => sum + f.states, 0);
  const samples = parts.reduce((sum, f) => sum + f.stateOf.length, 0);
  const counts = new Float64Array(states * K);
  const stateOf = new Int32Array(samples);
  const observed = new Uint8Array(samples);
  const runOf = new Float64Array(samples);
  const unread = new Uint8Array(samples);
  const programOf = new Int32Array(samples);
  const partOf = new Int32Array(samples);
  const programIndex = new Map<string, number>();
  const probabilities = new Map(names.map((n) => [n, new Float64Array(states * K)]));
  let stateOffset = 0;
  let sampleOffset = 0;
  parts.forEach((part, f) => {
    counts.set(part.counts, stateOffset * K);
    const programs = part.programNames.map((p) => {
      let i = programIndex.get(p);
      if (i === undefined) programIndex.set(p, (i = programIndex.size));
      return i;
    });
    for (let j = 0; j < part.stateOf.length; j++) {
      stateOf[sampleOffset + j] = stateOffset + part.stateOf[j]!;
      programOf[sampleOffset + j] = programs[part.programOf[j]!]!;
      partOf[sampleOffset + j] = f;
    }
    observed.set(part.observed, sampleOffset);
    runOf.set(part.runOf, sampleOffset);
    unread.set(part.unread, sampleOffset);
    for (const name of names) {
      const output = part.outputs.find((o) => o.name === name)!;
      probabilities.get(name)!.set(output.probabilities, stateOffset * K);
    }
    stateOffset += part.states;
    sampleOffset += part.stateOf.length;
  });
  return {
    states,
    counts,
    stateOf,
    observed,
    runOf,
    unread,
    programOf,
    programNames: [...programIndex.keys()],
    partOf,
    probabilities,
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
  /**
   * Accuracy, ECE and NLL with every family and every program counted once (weighted.ts); its
   * accuracy's family mean is clusterMeanAccuracy to the last bits.
   */
  readonly means: WeightedFigures;
  /** The same on the samples of the runs the predictor did not read. */
  readonly otherRunsMeans: WeightedFigures;
  /**
   * Each family's accuracy (interval over its programs), ECE and reliability on the runs the
   * predictor did not read, in family-name order: beside `families`' leave-one-run-out ceilings.
   */
  readonly otherRunsFamilies: readonly (FamilyFigure & { readonly name: string })[];
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
  /** How much of the pooled figures the largest programs hold. */
  readonly concentration: SampleConcentration;
  /** Each family (cluster) in name order: its programs, samples and leave-one-run-out ceiling. */
  readonly families: readonly {
    readonly family: string;
    readonly programs: number;
    readonly samples: number;
    readonly ceilingLoo: number;
  }[];
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

/**
 * Clusters numbered in order of first appearance among the samples (among those with
 * only[j] = 1 when given), as clusterIndex numbers them, so intervals from these sums draw
 * exactly what they drew from one cluster key per sample. A cluster is a function of the
 * program, so the numbering is kept per program (−1: none of its samples counted).
 */
interface ClusterNumbering {
  readonly ofProgram: Int32Array;
  /** Samples counted in each cluster. */
  readonly sizes: number[];
  /** Key of each cluster. */
  readonly names: string[];
  /** Samples counted. */
  readonly samples: number;
}

function numberClusters(programOf: Int32Array, keyOfProgram: readonly string[], only?: Uint8Array): ClusterNumbering {
  const ofProgram = new Int32Array(keyOfProgram.length).fill(-1);
  const number = new Map<string, number>();
  const sizes: number[] = [];
  const names: string[] = [];
  let samples = 0;
  for (let j = 0; j < programOf.length; j++) {
    if (only !== undefined && only[j] !== 1) continue;
    const p = programOf[j]!;
    let g = ofProgram[p]!;
    if (g < 0) {
      const key = keyOfProgram[p]!;
      let known = number.get(key);
      if (known === undefined) {
        number.set(key, (known = sizes.length));
        sizes.push(0);
        names.push(key);
      }
      ofProgram[p] = g = known;
    }
    sizes[g]! += 1;
    samples++;
  }
  return { ofProgram, sizes, names, samples };
}

/** Per-cluster, per-bin calibration sums (CalibrationCells) and the global bins, accumulated sample by sample. */
class CalibrationSums {
  readonly cells: CalibrationCells;
  readonly count = new Float64Array(DEFAULT_CALIBRATION_BINS);
  readonly confidence = new Float64Array(DEFAULT_CALIBRATION_BINS);
  readonly hits = new Float64Array(DEFAULT_CALIBRATION_BINS);

  constructor(clusters: number) {
    const cells = clusters * DEFAULT_CALIBRATION_BINS;
    this.cells = {
      count: new Float64Array(cells),
      confidenceSum: new Float64Array(cells),
      hits: new Float64Array(cells),
    };
  }

  add(cluster: number, confidence: number, credit: number): void {
    const bin = calibrationBin(confidence, DEFAULT_CALIBRATION_BINS);
    this.count[bin]! += 1;
    this.confidence[bin]! += confidence;
    this.hits[bin]! += credit;
    const cell = cluster * DEFAULT_CALIBRATION_BINS + bin;
    this.cells.count[cell]! += 1;
    this.cells.confidenceSum[cell]! += confidence;
    this.cells.hits[cell]! += credit;
  }

  bins(): ReliabilityBin[] {
    return reliabilityBinsOfSums(this.count, this.confidence, this.hits);
  }
}

/**
 * Everything the scoreboard reads of one predictor, summed over the pooled samples in sample
 * order (so every sum is bit-identical to the per-metric functions' over per-sample arrays):
 * per cluster, per fold, per program, per calibration bin, and the same on the samples of the
 * runs the predictor did not read, in their own cluster numbering.
 */
interface PredictorSums {
  readonly top: TopLabelColumns;
  readonly clusterCredit: Float64Array;
  readonly clusterNll: Float64Array;
  readonly calibration: CalibrationSums;
  readonly brier: number;
  readonly confusion: number[][];
  readonly foldCredit: Float64Array;
  /** Per program: samples, credit, NLL and calibration bins (weighted.ts), on every sample and on the unread runs' ones. */
  readonly perProgram: ProgramSums;
  readonly perProgramUnread: ProgramSums;
  readonly unreadCredit: Float64Array;
  readonly unreadNll: Float64Array;
  readonly unreadCalibration: CalibrationSums;
  /** Per cluster: samples whose observed event is in the conformal set, and Σ set sizes; null without thresholds. */
  readonly conformal: { readonly covered: Float64Array; readonly size: Float64Array } | null;
}

/** The samples of the pooled folds and how they are grouped: what every predictor's pass shares. */
interface PooledLayout {
  readonly pooled: PooledFolds;
  readonly clusters: ClusterNumbering;
  readonly unreadClusters: ClusterNumbering;
  readonly folds: number;
}

/** The tie credit of a sample of `state` under a predictor's top labels: 1/m when `observed` is one of the m tied. */
const creditOf = (top: TopLabelColumns, state: number, observed: number): number =>
  ((top.mask[state]! >> observed) & 1) === 1 ? 1 / top.tied[state]! : 0;

function predictorSums(
  layout: PooledLayout,
  output: ProbabilityColumn,
  thresholds: readonly number[] | undefined,
): PredictorSums {
  const { pooled, clusters, unreadClusters, folds } = layout;
  const q = output.probabilities;
  const top = topLabelColumns(pooled.states, (i) => q.subarray(i * K, (i + 1) * K));
  const g = clusters.sizes.length;
  const u = unreadClusters.sizes.length;
  const clusterCredit = new Float64Array(g);
  const clusterNll = new Float64Array(g);
  const calibration = new CalibrationSums(g);
  const confusion = Array.from({ length: K }, () => new Array<number>(K).fill(0));
  const foldCredit = new Float64Array(folds);
  const perProgram = emptyProgramSums(pooled.programNames.length);
  const perProgramUnread = emptyProgramSums(pooled.programNames.length);
  const unreadCredit = new Float64Array(u);
  const unreadNll = new Float64Array(u);
  const unreadCalibration = new CalibrationSums(u);
  const conformal = thresholds === undefined ? null : { covered: new Float64Array(g), size: new Float64Array(g) };
  let brier = 0;
  for (let j = 0; j < pooled.stateOf.length; j++) {
    const s = pooled.stateOf[j]!;
    const o = pooled.observed[j]!;
    const p = pooled.programOf[j]!;
    const c = clusters.ofProgram[p]!;
    const row = s * K;
    const credit = creditOf(top, s, o);
    const share = 1 / top.tied[s]!;
    for (let k = 0; k < K; k++) if (((top.mask[s]! >> k) & 1) === 1) confusion[o]![k]! += share;
    // negativeLogLikelihood of one sample, brierScore's terms in its order.
    const nll = -Math.log(Math.max(q[row + o]!, PROBABILITY_FLOOR));
    for (let k = 0; k < K; k++) brier += (q[row + k]! - (k === o ? 1 : 0)) ** 2;
    clusterCredit[c]! += credit;
    clusterNll[c]! += nll;
    calibration.add(c, top.confidence[s]!, credit);
    const f = pooled.foldOf[j]!;
    if (f < folds) foldCredit[f]! += credit;
    addProgramSample(perProgram, p, credit, nll, top.confidence[s]!);
    if (pooled.unread[j] === 1) {
      addProgramSample(perProgramUnread, p, credit, nll, top.confidence[s]!);
      const uc = unreadClusters.ofProgram[p]!;
      unreadCredit[uc]! += credit;
      unreadNll[uc]! += nll;
      unreadCalibration.add(uc, top.confidence[s]!, credit);
    }
    if (conformal !== null) {
      // The sample's conformal set under its fold's threshold.
      const t = thresholds![f]!;
      const answer = q.subarray(row, row + K);
      if (labelScore(answer, o) <= t) conformal.covered[c]! += 1;
      conformal.size[c]! += predictionSetSize(answer, t);
    }
  }
  return {
    top,
    clusterCredit,
    clusterNll,
    calibration,
    brier,
    confusion,
    foldCredit,
    perProgram,
    perProgramUnread,
    unreadCredit,
    unreadNll,
    unreadCalibration,
    conformal,
  };
}

/**
 * The scoreboard of the pooled folds, from the same metric definitions evaluate() uses (tie
 * credit, binned ECE and its cluster interval, NLL, Brier, the ceilings of ceiling.ts, compare()'s
 * paired difference, sign-flip test and program leads), over the same clusters (chooseClusters:
 * families). Each predictor's samples are read in one pass that keeps only sums per cluster,
 * fold, program and calibration bin — their sufficient statistics — and every interval and test
 * resamples those (…OfSums), so memory beyond the pooled columns does not grow with the samples
 * and the results are those of the per-sample functions to the last bit. It skips evaluate()'s
 * entropy correlation, whose bootstrap re-sorts every state per resample: too slow for a pooled
 * corpus (docs/metrics.md, "Leave-family-out cross-validation"). Intervals of accuracy, ECE and
 * NLL share one seed and clusters, hence their resamples; each difference is predictor − reference.
 */
export function crossValidationScores(pooled: PooledFolds, options: ScoreOptions): CrossValidationScores {
  const reference = options.reference ?? CV_REFERENCE;
  const bootstrap = options.bootstrap ?? {};
  const n = pooled.stateOf.length;
  const { of: clusterOf, unit: clusterUnit } = chooseClusters(pooled.programNames, options.familyOf);
  const keyOfProgram = pooled.programNames.map(clusterOf);
  const layout: PooledLayout = {
    pooled,
    clusters: numberClusters(pooled.programOf, keyOfProgram),
    unreadClusters: numberClusters(pooled.programOf, keyOfProgram, pooled.unread),
    folds: options.folds,
  };
  const { sizes, names } = layout.clusters;
  const unreadSizes = layout.unreadClusters.sizes;
  const foldSamples = new Float64Array(options.folds);
  const programSamples = new Float64Array(pooled.programNames.length);
  for (let j = 0; j < n; j++) {
    if (pooled.foldOf[j]! < options.folds) foldSamples[pooled.foldOf[j]!]! += 1;
    programSamples[pooled.programOf[j]!]! += 1;
  }
  const majority = EVENT_TYPES.indexOf(options.majorityClass);
  const looCredit = leaveOneRunOutCredits(
    { state: pooled.stateOf, run: pooled.runOf, observed: pooled.observed },
    EVENT_TYPES.length,
    majority,
  );
  // Summed in sample order, as leaveOneRunOutCeilingOfColumns sums them.
  let looSum = 0;
  for (let j = 0; j < n; j++) looSum += looCredit[j]!;
  const ceilingLoo = n === 0 ? NaN : looSum / n;
  // Clusters in name order, as the per-cluster accuracies are listed.
  const byName = names.map((_, c) => c).sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
  const ones = new Float64Array(names.length).fill(1);
  const zeroPerCluster = new Float64Array(names.length);
  // The family of each program numbered in name order, as clusterAccuracy lists them and the family means draw them.
  const rankOfCluster = new Int32Array(names.length);
  byName.forEach((c, rank) => (rankOfCluster[c] = rank));
  const familyRankOfProgram = Int32Array.from(layout.clusters.ofProgram, (c) => (c < 0 ? -1 : rankOfCluster[c]!));
  const familyLoo = new Float64Array(names.length);
  const familyPrograms = new Float64Array(names.length);
  for (let j = 0; j < n; j++)
    familyLoo[rankOfCluster[layout.clusters.ofProgram[pooled.programOf[j]!]!]!]! += looCredit[j]!;
  for (const c of layout.clusters.ofProgram) if (c >= 0) familyPrograms[rankOfCluster[c]!]! += 1;
  const families = byName.map((c, rank) => ({
    family: names[c]!,
    programs: familyPrograms[rank]!,
    samples: sizes[c]!,
    ceilingLoo: familyLoo[rank]! / sizes[c]!,
  }));
  const zeros = new Float64Array(sizes.length);
  const unreadZeros = new Float64Array(unreadSizes.length);
  const sums = new Map<string, PredictorSums>();
  const clusterMeans = new Map<string, Float64Array>();
  const predictors = pooled.outputs.map((output): CrossValidatedPredictor => {
    const thresholds = pooled.thresholds.get(output.name);
    const t = predictorSums(layout, output, thresholds);
    sums.set(output.name, t);
    const bins = t.calibration.bins();
    const unreadBins = t.unreadCalibration.bins();
    const scores = classScores(t.confusion);
    const clusterAccuracy = byName.map((c) => ({
      cluster: names[c]!,
      samples: sizes[c]!,
      accuracy: t.clusterCredit[c]! / sizes[c]!,
    }));
    const clusterMean = Float64Array.from(clusterAccuracy, (c) => c.accuracy);
    clusterMeans.set(output.name, clusterMean);
    const means = weightedFigures(t.perProgram, familyRankOfProgram, clusterUnit.unit, bootstrap);
    const otherRunsAccuracy = clusterBootstrapMeanDifferenceOfSums(unreadSizes, t.unreadCredit, unreadZeros, bootstrap);
    return {
      name: output.name,
      accuracy: clusterBootstrapMeanDifferenceOfSums(sizes, t.clusterCredit, zeros, bootstrap),
      otherRunsAccuracy,
      otherRunsEce: {
        ...expectedCalibrationErrorIntervalOfCells(unreadSizes, t.unreadCalibration.cells, bootstrap),
        estimate: expectedCalibrationErrorOfBins(unreadBins, layout.unreadClusters.samples),
      },
      otherRunsOverconfidence: overconfidenceOfBins(unreadBins),
      otherRunsNll: clusterBootstrapMeanDifferenceOfSums(unreadSizes, t.unreadNll, unreadZeros, bootstrap),
      clusterMeanAccuracy: clusterBootstrapMeanDifferenceOfSums(ones, clusterMean, zeroPerCluster, bootstrap),
      means,
      otherRunsMeans: weightedFigures(t.perProgramUnread, familyRankOfProgram, clusterUnit.unit, bootstrap),
      otherRunsFamilies: familyFigures(t.perProgramUnread, familyRankOfProgram, bootstrap).map((f) => ({
        ...f,
        name: names[byName[f.family]!]!,
      })),
      ece: {
        ...expectedCalibrationErrorIntervalOfCells(sizes, t.calibration.cells, bootstrap),
        estimate: expectedCalibrationErrorOfBins(bins, n),
      },
      overconfidence: overconfidenceOfBins(bins),
      nll: clusterBootstrapMeanDifferenceOfSums(sizes, t.clusterNll, zeros, bootstrap),
      brier: n === 0 ? NaN : t.brier / n,
      macroF1: macroF1(scores),
      recall: Object.fromEntries(EVENT_TYPES.map((e, k) => [e, scores[k]!.recall])) as Record<EventType, number>,
      gapToCeilingLoo: ceilingLoo - otherRunsAccuracy.estimate,
      shareOfCeilingLoo: otherRunsAccuracy.estimate / ceilingLoo,
      foldAccuracy: Array.from(foldSamples, (m, f) => t.foldCredit[f]! / m),
      clusterAccuracy,
      conformal:
        thresholds === undefined
          ? null
          : {
              target: CONFORMAL_COVERAGE,
              coverage: clusterBootstrapMeanDifferenceOfSums(sizes, t.conformal!.covered, zeros, bootstrap),
              setSize: clusterBootstrapMeanDifferenceOfSums(sizes, t.conformal!.size, zeros, bootstrap),
              foldThresholds: thresholds,
            },
    };
  });
  const programCredits = (t: PredictorSums): ProgramCredit[] =>
    pooled.programNames.map((program, p) => ({
      program,
      samples: programSamples[p]!,
      credit: t.perProgram.credit[p]!,
    }));
  const againstReference: ReferenceDifference[] = sums.has(reference)
    ? pooled.outputs
        .filter((o) => o.name !== reference)
        .map((o) => {
          const a = sums.get(o.name)!;
          const b = sums.get(reference)!;
          return {
            predictor: o.name,
            reference,
            difference: clusterBootstrapMeanDifferenceOfSums(sizes, a.clusterCredit, b.clusterCredit, bootstrap),
            p: clusterSignFlipTestOfSums(pairedDifferences(layout, a.top, b.top), n, bootstrap).pValue,
            programLeads: programLeadsOfSums(programCredits(a), programCredits(b)),
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
    samples: n,
    states: pooled.states,
    programs: pooled.programNames.length,
    ceiling: ceilingAccuracy(
      Array.from({ length: pooled.states }, (_, i) => Array.from(pooled.counts.subarray(i * K, (i + 1) * K))),
    ),
    ceilingLoo,
    majority: majorityAccuracy(pooled.observed, majority),
    majorityClass: options.majorityClass,
    concentration: sampleConcentration(pooled.programNames, programSamples),
    families,
    predictors,
    againstReference,
  };
}

/** Per cluster, Σ (credit under A − credit under B) over its samples in sample order: the sign-flip test's statistics. */
function pairedDifferences(layout: PooledLayout, a: TopLabelColumns, b: TopLabelColumns): Float64Array {
  const { pooled, clusters } = layout;
  const d = new Float64Array(clusters.sizes.length);
  for (let j = 0; j < pooled.stateOf.length; j++) {
    const s = pooled.stateOf[j]!;
    const o = pooled.observed[j]!;
    d[clusters.ofProgram[pooled.programOf[j]!]!]! += creditOf(a, s, o) - creditOf(b, s, o);
  }
  return d;
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
