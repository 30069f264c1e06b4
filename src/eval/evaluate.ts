// evaluate(): every single-step metric of docs/metrics.md for each predictor on one set of
// states and samples, plus paired comparisons. Pure: arrays in, typed results out.
// Every label metric gives a tie of m top labels the credit 1/m (tieCredit), and every
// interval and test resamples clusters (families, or programs when there are few families).
// Samples are held as typed columns and every sample metric is accumulated in one pass, with
// its per-cluster sums for the intervals, so memory and time are linear in the samples.

import { ceilingAccuracy, leaveOneRunOutCeilingOfColumns, seenOnceShare, type State } from "../dataset/index.js";
import { EVENT_TYPES, type EventType } from "../core/index.js";
import { probabilityVectorProblem } from "../predict/index.js";
import { compare, programAccuracy } from "./compare.js";
import { EvaluationInputError } from "./errors.js";
import { addProgramSample, emptyProgramSums, sampleConcentration, weightedFigures } from "./weighted.js";
import {
  calibrationBin,
  classScores,
  clusterBootstrapMeanDifferenceOfSums,
  clusterSpearman,
  correlationPValue,
  DEFAULT_CALIBRATION_BINS,
  empiricalDistribution,
  entropy,
  expectedCalibrationErrorIntervalOfCells,
  expectedCalibrationErrorOfBins,
  klDivergence,
  l1Distance,
  macroF1,
  majorityAccuracy,
  majorityLabel,
  pearson,
  PROBABILITY_FLOOR,
  spearman,
  reliabilityBinsOfSums,
  TIE_TOLERANCE,
} from "../metrics/index.js";
import type {
  ClusterUnit,
  EntropyPoint,
  EvaluationContext,
  EvaluationResult,
  EvaluationSample,
  EventScores,
  PredictorEvaluation,
  PredictorOutput,
  SampleScores,
} from "./types.js";

/** States need at least this many samples to enter the entropy correlation: one run always has entropy 0. */
export const MIN_SAMPLES_FOR_ENTROPY = 2;

/** Intervals and tests resample families when the test samples span at least this many, else programs. */
export const MIN_FAMILY_CLUSTERS = 5;

/**
 * Samples resolved against the states, as typed columns (one entry per sample, no object per
 * sample). Clusters are numbered in order of first appearance among the samples, as
 * clusterIndex numbers them, so the intervals draw exactly what they drew from string keys.
 */
interface SampleColumns {
  readonly stateIndex: Int32Array;
  readonly observed: Uint8Array;
  readonly runs: Float64Array;
  /** 1 where the sample's run is not the one its state's representative prefix was read from. */
  readonly unread: Uint8Array;
  readonly cluster: Int32Array;
  /** Samples per cluster. */
  readonly clusterSizes: readonly number[];
  /** Cluster key of each sample (shared by every predictor's SampleScores). */
  readonly clusterKeys: readonly string[];
  readonly clusterUnit: ClusterUnit;
  /** Distinct programs among the samples. */
  readonly programs: number;
  /** Program of each sample (shared by every predictor's SampleScores). */
  readonly samplePrograms: readonly string[];
  /** Program number of each sample, into programNames. */
  readonly program: Int32Array;
  readonly programNames: readonly string[];
  /** Cluster number of each program (clusters as `cluster` numbers them). */
  readonly clusterOfProgram: Int32Array;
  /** Cluster key of each state (of its representative's program), for the entropy correlation. */
  readonly stateClusters: readonly string[];
}

/** What every predictor is scored against, computed once per evaluate. */
interface StateColumns {
  /** Next-event counts per state, EVENT_TYPES order. */
  readonly counts: readonly (readonly number[])[];
  /** Σ counts per state. */
  readonly totals: Float64Array;
  /** p̂ per state (null for a state without samples). */
  readonly empirical: readonly (readonly number[] | null)[];
  /** Bit k set when event k is a mode of the state's counts. */
  readonly modes: Uint8Array;
}

const CLASSES = EVENT_TYPES.length;
const eventIndex = (event: EventType): number => EVENT_TYPES.indexOf(event);
const sampleProgram = (s: EvaluationSample): string => ("program" in s ? s.program : s.prefix.program);
const sampleRun = (s: EvaluationSample): number => ("runId" in s ? s.runId : s.prefix.runId);
const countsVector = (state: State): number[] => EVENT_TYPES.map((e) => state.counts[e]);
const total = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);
const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : total(xs) / xs.length);
const bitCount = (mask: number): number => {
  let n = 0;
  for (let m = mask; m !== 0; m >>= 1) n += m & 1;
  return n;
};

/**
 * Families when the samples span at least MIN_FAMILY_CLUSTERS of them (samples of one family
 * share a template or category, so they are not independent), else programs: with two or
 * three families a bootstrap interval or permutation test is meaningless.
 */
export function chooseClusters(
  programs: readonly string[],
  familyOf: ((program: string) => string) | undefined,
): { of: (program: string) => string; unit: ClusterUnit } {
  const distinct = [...new Set(programs)];
  if (familyOf !== undefined) {
    const families = new Set(distinct.map(familyOf)).size;
    if (families >= MIN_FAMILY_CLUSTERS) return { of: familyOf, unit: { unit: "family", clusters: families } };
  }
  return { of: (program) => program, unit: { unit: "program", clusters: distinct.length } };
}

function resolveSamples(
  states: readonly State[],
  samples: readonly EvaluationSample[],
  familyOf: EvaluationContext["familyOf"],
): SampleColumns {
  const index = new Map<string, number>();
  states.forEach((s, i) => {
    if (!index.has(s.id)) index.set(s.id, i);
  });
  const n = samples.length;
  const stateIndex = new Int32Array(n);
  const observed = new Uint8Array(n);
  const runs = new Float64Array(n);
  const unread = new Uint8Array(n);
  const programs: string[] = new Array<string>(n);
  for (let j = 0; j < n; j++) {
    const sample = samples[j]!;
    const i = index.get(sample.stateId);
    if (i === undefined) {
      throw new EvaluationInputError(
        `sample of state ${sample.stateId} (program ${sampleProgram(sample)}) has no matching state`,
        "Pass the states and samples of the same dataset build (same abstraction and holdout split).",
      );
    }
    const k = eventIndex(sample.next);
    if (k < 0) {
      throw new EvaluationInputError(
        `sample of state ${sample.stateId} has unknown next event "${sample.next}"`,
        "Rebuild the dataset.",
      );
    }
    stateIndex[j] = i;
    observed[j] = k;
    runs[j] = sampleRun(sample);
    unread[j] = runs[j] === states[i]!.representative.runId ? 0 : 1;
    programs[j] = sampleProgram(sample);
  }
  const distinct = [...new Set(programs)];
  const clusters = chooseClusters(distinct, familyOf);
  const keyOf = new Map(distinct.map((p) => [p, clusters.of(p)]));
  const clusterKeys = programs.map((p) => keyOf.get(p)!);
  const number = new Map<string, number>();
  const cluster = new Int32Array(n);
  const clusterSizes: number[] = [];
  for (let j = 0; j < n; j++) {
    let g = number.get(clusterKeys[j]!);
    if (g === undefined) {
      g = clusterSizes.length;
      number.set(clusterKeys[j]!, g);
      clusterSizes.push(0);
    }
    cluster[j] = g;
    clusterSizes[g]! += 1;
  }
  const programNumber = new Map(distinct.map((p, i) => [p, i]));
  const program = Int32Array.from(programs, (p) => programNumber.get(p)!);
  const clusterOfProgram = Int32Array.from(distinct, (p) => number.get(keyOf.get(p)!)!);
  return {
    program,
    programNames: distinct,
    clusterOfProgram,
    stateIndex,
    observed,
    runs,
    unread,
    cluster,
    clusterSizes,
    clusterKeys,
    clusterUnit: clusters.unit,
    programs: distinct.length,
    samplePrograms: programs,
    stateClusters: states.map((s) => clusters.of(s.program)),
  };
}

function stateColumns(states: readonly State[]): StateColumns {
  const counts = states.map(countsVector);
  const totals = Float64Array.from(counts, total);
  const modes = new Uint8Array(states.length);
  counts.forEach((row, i) => {
    const max = Math.max(...row);
    row.forEach((c, k) => {
      if (c === max) modes[i]! |= 1 << k;
    });
  });
  return {
    counts,
    totals,
    empirical: counts.map((row, i) => (totals[i] === 0 ? null : empiricalDistribution(row))),
    modes,
  };
}

function checkOutput(states: readonly State[], output: PredictorOutput): void {
  if (output.predictions.length !== states.length) {
    throw new EvaluationInputError(
      `predictor ${output.name} gave ${output.predictions.length} predictions for ${states.length} states`,
      "Predictions must be aligned with the states, one per state in the same order.",
    );
  }
  output.predictions.forEach((p, i) => {
    const q = p.probabilities;
    if (probabilityVectorProblem(q) !== null) {
      throw new EvaluationInputError(
        `predictor ${output.name} gave an invalid distribution for state ${states[i]!.id}: [${q.join(", ")}]`,
        "Each prediction must be six finite non-negative probabilities in EVENT_TYPES order summing to 1.",
      );
    }
  });
}

function perEventScores(confusion: readonly (readonly number[])[]): Record<EventType, EventScores> {
  const scores = classScores(confusion);
  return Object.fromEntries(
    EVENT_TYPES.map((e, k) => {
      const { precision, recall, f1, support, predicted } = scores[k]!;
      return [e, { precision, recall, f1, support, predicted }];
    }),
  ) as Record<EventType, EventScores>;
}

interface Ceilings {
  readonly ceiling: number;
  readonly ceilingLoo: number;
  readonly seenOnce: PredictorEvaluation["seenOnce"];
}

/** The ceilings of the evaluated states: the same for every predictor. */
function ceilings(stateData: StateColumns, table: SampleColumns, fallback: number): Ceilings {
  return {
    ceiling: ceilingAccuracy(stateData.counts),
    ceilingLoo: leaveOneRunOutCeilingOfColumns(
      { state: table.stateIndex, run: table.runs, observed: table.observed },
      CLASSES,
      fallback,
    ),
    seenOnce: seenOnceShare(stateData.counts),
  };
}

/** Each state's tied top labels as a bit mask, their number and the top probability. */
export interface TopLabelColumns {
  /** Bit k set when label k ties for the top (topLabels). */
  readonly mask: Uint8Array;
  /** How many labels tie for the top. */
  readonly tied: Uint8Array;
  /** The top probability (the confidence reliabilityBins bins). */
  readonly confidence: Float64Array;
}

/**
 * The labels topLabels returns for each of `states` distributions and their top probability,
 * computed once per state instead of once per sample.
 */
export function topLabelColumns(
  states: number,
  probabilitiesOf: (state: number) => ArrayLike<number>,
): TopLabelColumns {
  const mask = new Uint8Array(states);
  const tied = new Uint8Array(states);
  const confidence = new Float64Array(states);
  for (let i = 0; i < states; i++) {
    const q = probabilitiesOf(i);
    let max = q[0]!;
    for (let k = 1; k < q.length; k++) if (q[k]! > max) max = q[k]!;
    for (let k = 0; k < q.length; k++) {
      if (q[k]! >= max - TIE_TOLERANCE) {
        mask[i]! |= 1 << k;
        tied[i]! += 1;
      }
    }
    confidence[i] = max;
  }
  return { mask, tied, confidence };
}

/**
 * Every sample-level metric of one predictor in one pass over the samples, in sample order
 * (so each sum is bit-identical to the per-metric functions: accuracy, confusionMatrix,
 * reliabilityBins, brierScore, negativeLogLikelihood), with the per-cluster sums the accuracy
 * ECE, Brier and NLL intervals resample (clusterBootstrapMeanDifference, expectedCalibrationErrorInterval):
 * a resample then costs O(clusters), never O(samples).
 */
function sampleMetrics(
  output: PredictorOutput,
  table: SampleColumns,
  bootstrap: { resamples?: number; seed?: number },
) {
  const bins = DEFAULT_CALIBRATION_BINS;
  const clusters = table.clusterSizes.length;
  const top = topLabelColumns(output.predictions.length, (i) => output.predictions[i]!.probabilities);
  const n = table.stateIndex.length;
  const credit = new Array<number>(n);
  const clusterCredit = new Float64Array(clusters);
  const unreadSizes = new Float64Array(clusters);
  const unreadCredit = new Float64Array(clusters);
  const unreadBins = {
    count: new Float64Array(bins),
    confidence: new Float64Array(bins),
    hits: new Float64Array(bins),
  };
  let unreadNll = 0;
  const clusterBrier = new Float64Array(clusters);
  const clusterNll = new Float64Array(clusters);
  const confusion = Array.from({ length: CLASSES }, () => new Array<number>(CLASSES).fill(0));
  const binCount = new Float64Array(bins);
  const binConfidence = new Float64Array(bins);
  const binHits = new Float64Array(bins);
  const perProgram = emptyProgramSums(table.programNames.length, bins);
  const cells = {
    count: new Float64Array(clusters * bins),
    confidenceSum: new Float64Array(clusters * bins),
    hits: new Float64Array(clusters * bins),
  };
  let creditSum = 0;
  let unreadSum = 0;
  let unreadCount = 0;
  let brier = 0;
  let nll = 0;
  for (let j = 0; j < n; j++) {
    const s = table.stateIndex[j]!;
    const o = table.observed[j]!;
    const q = output.predictions[s]!.probabilities;
    const mask = top.mask[s]!;
    const share = 1 / top.tied[s]!;
    const c = ((mask >> o) & 1) === 1 ? share : 0;
    credit[j] = c;
    creditSum += c;
    clusterCredit[table.cluster[j]!]! += c;
    for (let k = 0; k < CLASSES; k++) if (((mask >> k) & 1) === 1) confusion[o]![k]! += share;
    const confidence = top.confidence[s]!;
    const bin = calibrationBin(confidence, bins);
    if (table.unread[j] === 1) {
      unreadSum += c;
      unreadCount++;
      unreadSizes[table.cluster[j]!]! += 1;
      unreadCredit[table.cluster[j]!]! += c;
      unreadBins.count[bin]! += 1;
      unreadBins.confidence[bin]! += confidence;
      unreadBins.hits[bin]! += c;
    }
    binCount[bin]! += 1;
    binConfidence[bin]! += confidence;
    binHits[bin]! += c;
    const cell = table.cluster[j]! * bins + bin;
    cells.count[cell]! += 1;
    cells.confidenceSum[cell]! += confidence;
    cells.hits[cell]! += c;
    // brier and nll sum term by term, as brierScore and negativeLogLikelihood do; the cluster sums take whole samples.
    let sampleBrier = 0;
    for (let k = 0; k < CLASSES; k++) {
      const term = (q[k]! - (k === o ? 1 : 0)) ** 2;
      brier += term;
      sampleBrier += term;
    }
    // a − x and a + (−x) are the same IEEE operation, so this is negativeLogLikelihood's sum.
    const sampleNll = -Math.log(Math.max(q[o] ?? 0, PROBABILITY_FLOOR));
    nll += sampleNll;
    if (table.unread[j] === 1) unreadNll += sampleNll;
    clusterBrier[table.cluster[j]!]! += sampleBrier;
    clusterNll[table.cluster[j]!]! += sampleNll;
    addProgramSample(perProgram, table.program[j]!, c, sampleNll, confidence);
  }
  const zeros = new Float64Array(clusters);
  const reliability = reliabilityBinsOfSums(binCount, binConfidence, binHits);
  return {
    credit,
    confusion,
    reliability,
    accuracy: n === 0 ? NaN : creditSum / n,
    accuracyInterval: clusterBootstrapMeanDifferenceOfSums(table.clusterSizes, clusterCredit, zeros, bootstrap),
    otherRunsAccuracy: unreadCount === 0 ? NaN : unreadSum / unreadCount,
    otherRunsAccuracyInterval: clusterBootstrapMeanDifferenceOfSums(unreadSizes, unreadCredit, zeros, bootstrap),
    otherRunsSamples: unreadCount,
    otherRunsEce: expectedCalibrationErrorOfBins(
      reliabilityBinsOfSums(unreadBins.count, unreadBins.confidence, unreadBins.hits),
      unreadCount,
    ),
    otherRunsNll: unreadCount === 0 ? NaN : unreadNll / unreadCount,
    ece: expectedCalibrationErrorOfBins(reliability, n),
    eceInterval: expectedCalibrationErrorIntervalOfCells(table.clusterSizes, cells, bootstrap),
    brier: n === 0 ? NaN : brier / n,
    nll: n === 0 ? NaN : nll / n,
    brierInterval: clusterBootstrapMeanDifferenceOfSums(table.clusterSizes, clusterBrier, zeros, bootstrap),
    nllInterval: clusterBootstrapMeanDifferenceOfSums(table.clusterSizes, clusterNll, zeros, bootstrap),
    means: weightedFigures(perProgram, table.clusterOfProgram, table.clusterUnit.unit, bootstrap),
    concentration: sampleConcentration(table.programNames, perProgram.samples),
    top,
  };
}

function distributionMetrics(
  output: PredictorOutput,
  stateData: StateColumns,
  table: SampleColumns,
  top: { readonly mask: Uint8Array; readonly tied: Uint8Array },
  bootstrap: { resamples?: number; seed?: number },
) {
  const kl: number[] = [];
  const l1: number[] = [];
  const points: EntropyPoint[] = [];
  const pointClusters: string[] = [];
  const predictedH: number[] = [];
  const empiricalH: number[] = [];
  let modeHits = 0;
  let scored = 0;
  output.predictions.forEach((prediction, i) => {
    const p = stateData.empirical[i];
    if (p === null || p === undefined) return;
    const q = prediction.probabilities;
    kl.push(klDivergence(p, q));
    l1.push(l1Distance(p, q));
    // modeAccuracy: the share of q's tied top labels that are modes of the counts.
    modeHits += bitCount(top.mask[i]! & stateData.modes[i]!) / top.tied[i]!;
    scored++;
    if (stateData.totals[i]! >= MIN_SAMPLES_FOR_ENTROPY) {
      const point = { predicted: entropy(q), empirical: entropy(p) };
      points.push(point);
      predictedH.push(point.predicted);
      empiricalH.push(point.empirical);
      pointClusters.push(table.stateClusters[i]!);
    }
  });
  const rho = clusterSpearman(pointClusters, predictedH, empiricalH, bootstrap);
  // Points carry the number of their cluster (family, or program) so a chart can colour them by it.
  const clusterNames = [...new Set(pointClusters)].sort();
  const clusterNumber = new Map(clusterNames.map((c, i) => [c, i]));
  // One pass: each point numbered by its cluster, and its entropies gathered under it.
  const entropies = clusterNames.map(() => ({ predicted: [] as number[], empirical: [] as number[] }));
  const numbered = points.map((pt, i) => {
    const cluster = clusterNumber.get(pointClusters[i]!)!;
    entropies[cluster]!.predicted.push(predictedH[i]!);
    entropies[cluster]!.empirical.push(empiricalH[i]!);
    return { ...pt, cluster };
  });
  const byCluster = clusterNames.map((cluster, k) => {
    const { predicted, empirical } = entropies[k]!;
    return {
      cluster,
      states: predicted.length,
      spearman: spearman(predicted, empirical).r,
      meanPredicted: mean(predicted),
      meanEmpirical: mean(empirical),
    };
  });
  return {
    modeAccuracy: scored === 0 ? NaN : modeHits / scored,
    kl: mean(kl),
    l1: mean(l1),
    points: numbered,
    clusterNames,
    byCluster,
    rho,
    // spearman(predictedH, empiricalH).pValue, without ranking the entropies a second time.
    rhoPIndependent: Number.isFinite(rho.rho) ? correlationPValue(rho.rho, points.length) : NaN,
    r: pearson(predictedH, empiricalH),
    meanPredictedEntropy: mean(predictedH),
    meanEmpiricalEntropy: mean(empiricalH),
  };
}

function scorePredictor(
  states: readonly State[],
  stateData: StateColumns,
  table: SampleColumns,
  output: PredictorOutput,
  context: EvaluationContext,
  majority: { readonly label: number; readonly source: "train" | "test"; readonly accuracy: number },
  bounds: Ceilings,
): { evaluation: PredictorEvaluation; scores: SampleScores } {
  checkOutput(states, output);
  // Every interval uses the same seed and clusters, hence the same resamples.
  const bootstrap = { resamples: context.bootstrapResamples, seed: context.bootstrapSeed };
  const labels = sampleMetrics(output, table, bootstrap);
  const perEvent = perEventScores(labels.confusion);
  const dist = distributionMetrics(output, stateData, table, labels.top, bootstrap);
  const evaluation: PredictorEvaluation = {
    name: output.name,
    configHash: output.configHash,
    abstraction: context.abstraction,
    holdout: context.holdout,
    states: states.length,
    samples: table.observed.length,
    programs: table.programs,
    clusterUnit: table.clusterUnit,
    accuracy: labels.accuracy,
    programAccuracy: programAccuracy(table.samplePrograms, labels.credit),
    accuracyInterval: labels.accuracyInterval,
    means: labels.means,
    concentration: labels.concentration,
    otherRunsAccuracy: labels.otherRunsAccuracy,
    otherRunsAccuracyInterval: labels.otherRunsAccuracyInterval,
    otherRunsSamples: labels.otherRunsSamples,
    otherRunsEce: labels.otherRunsEce,
    otherRunsNll: labels.otherRunsNll,
    modeAccuracy: dist.modeAccuracy,
    ceiling: bounds.ceiling,
    ceilingLoo: bounds.ceilingLoo,
    seenOnce: bounds.seenOnce,
    majority: majority.accuracy,
    majorityClass: EVENT_TYPES[majority.label]!,
    majoritySource: majority.source,
    macroF1: macroF1(Object.values(perEvent)),
    perEvent,
    confusion: labels.confusion,
    ece: labels.ece,
    eceInterval: labels.eceInterval,
    reliability: labels.reliability,
    brier: labels.brier,
    brierInterval: labels.brierInterval,
    nll: labels.nll,
    nllInterval: labels.nllInterval,
    kl: dist.kl,
    l1: dist.l1,
    entropySpearman: dist.rho.rho,
    entropySpearmanP: dist.rho.pValue,
    entropySpearmanInterval: dist.rho.interval,
    entropySpearmanPIndependent: dist.rhoPIndependent,
    entropyPearson: dist.r.r,
    entropyPearsonPIndependent: dist.r.pValue,
    entropyStates: dist.points.length,
    meanPredictedEntropy: dist.meanPredictedEntropy,
    meanEmpiricalEntropy: dist.meanEmpiricalEntropy,
    entropyPoints: dist.points,
    entropyClusters: dist.clusterNames,
    entropyByCluster: dist.byCluster,
  };
  const scores: SampleScores = {
    name: output.name,
    abstraction: context.abstraction,
    holdout: context.holdout,
    clusters: table.clusterKeys,
    clusterUnit: table.clusterUnit,
    programs: table.samplePrograms,
    credit: labels.credit,
  };
  return { evaluation, scores };
}

/**
 * Scores each predictor on `states` (distribution metrics: mode accuracy, KL, L1,
 * entropy correlation) and on `samples` (label metrics: accuracy, P/R/F1, confusion,
 * ECE, Brier, NLL), then compares every pair. `outputs[i].predictions` must be aligned
 * with `states`; every sample's stateId must be one of `states`.
 *
 * Aggregation: label metrics weight every sample once; distribution metrics weight
 * every state with at least one sample once; the entropy correlation uses states with
 * at least MIN_SAMPLES_FOR_ENTROPY samples.
 */
export function evaluate(
  states: readonly State[],
  samples: readonly EvaluationSample[],
  outputs: readonly PredictorOutput[],
  context: EvaluationContext,
): EvaluationResult {
  const table = resolveSamples(states, samples, context.familyOf);
  const stateData = stateColumns(states);
  const label =
    context.majorityClass !== undefined ? eventIndex(context.majorityClass) : majorityLabel(table.observed, CLASSES);
  const majority = {
    label,
    source: context.majorityClass !== undefined ? ("train" as const) : ("test" as const),
    accuracy: majorityAccuracy(table.observed, label),
  };
  const bounds = ceilings(stateData, table, majority.label);
  const scored = outputs.map((o) => scorePredictor(states, stateData, table, o, context, majority, bounds));
  const comparisons = [];
  for (let i = 0; i < scored.length; i++) {
    for (let j = i + 1; j < scored.length; j++) {
      comparisons.push(
        compare(scored[i]!.scores, scored[j]!.scores, {
          resamples: context.bootstrapResamples,
          seed: context.bootstrapSeed,
        }),
      );
    }
  }
  return {
    abstraction: context.abstraction,
    holdout: context.holdout,
    predictors: scored.map((s) => s.evaluation),
    comparisons,
  };
}
