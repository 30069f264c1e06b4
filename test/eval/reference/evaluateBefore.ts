// REFERENCE ONLY: evaluate() of src/eval/evaluate.ts before issue 25 (object arrays, one pass per
// metric, a re-ranking bootstrap), kept verbatim so tests can check that the columnar version
// gives bit-identical results. Not used by src/.
// Every label metric gives a tie of m top labels the credit 1/m (tieCredit), and every
// interval and test resamples clusters (families, or programs when there are few families).

import { ceilingAccuracy, leaveOneRunOutCeiling, seenOnceShare } from "../../../src/dataset/ceiling.js";
import type { State } from "../../../src/dataset/types.js";
import { EVENT_TYPES, type EventType } from "../../../src/core/index.js";
import { compare } from "../../../src/eval/compare.js";
import { EvaluationInputError } from "../../../src/eval/errors.js";
import { accuracy } from "../../../src/metrics/accuracy.js";
import { brierScore } from "../../../src/metrics/brierScore.js";
import { classScores } from "../../../src/metrics/classScores.js";
import { clusterBootstrapMeanDifference } from "../../../src/metrics/clusterBootstrap.js";
import { clusterSpearmanBefore as clusterSpearman } from "./clusterSpearmanBefore.js";
import { confusionMatrix } from "../../../src/metrics/confusionMatrix.js";
import { pearson, spearman } from "../../../src/metrics/correlation.js";
import { empiricalDistribution } from "../../../src/metrics/empiricalDistribution.js";
import { entropy } from "../../../src/metrics/entropy.js";
import { expectedCalibrationError } from "../../../src/metrics/expectedCalibrationError.js";
import { expectedCalibrationErrorInterval } from "../../../src/metrics/expectedCalibrationErrorInterval.js";
import { klDivergence } from "../../../src/metrics/klDivergence.js";
import { l1Distance } from "../../../src/metrics/l1Distance.js";
import { macroF1 } from "../../../src/metrics/macroF1.js";
import { majorityAccuracy, majorityLabel } from "../../../src/metrics/majorityAccuracy.js";
import { modeAccuracy } from "../../../src/metrics/modeAccuracy.js";
import { negativeLogLikelihood } from "../../../src/metrics/negativeLogLikelihood.js";
import { reliabilityBins } from "../../../src/metrics/reliabilityBins.js";
import { tieCredit } from "../../../src/metrics/tieCredit.js";
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
} from "../../../src/eval/types.js";

/** States need at least this many samples to enter the entropy correlation: one run always has entropy 0. */
export const MIN_SAMPLES_FOR_ENTROPY = 2;

/** Intervals and tests resample families when the test samples span at least this many, else programs. */
export const MIN_FAMILY_CLUSTERS = 5;

const PROBABILITY_SUM_TOLERANCE = 1e-6;

/** Samples resolved against the states: which state, which observed class, which run, which cluster. */
interface SampleTable {
  readonly stateIndex: readonly number[];
  readonly observed: readonly number[];
  readonly runs: readonly number[];
  readonly programs: readonly string[];
  readonly clusters: readonly string[];
  readonly clusterUnit: ClusterUnit;
  /** Cluster of each state (of its representative's program), for the entropy correlation. */
  readonly stateClusters: readonly string[];
}

const eventIndex = (event: EventType): number => EVENT_TYPES.indexOf(event);
const sampleProgram = (s: EvaluationSample): string => ("program" in s ? s.program : s.prefix.program);
const sampleRun = (s: EvaluationSample): number => ("runId" in s ? s.runId : s.prefix.runId);
const countsVector = (state: State): number[] => EVENT_TYPES.map((e) => state.counts[e]);
const total = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);
const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : total(xs) / xs.length);

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
): SampleTable {
  const index = new Map<string, number>();
  states.forEach((s, i) => {
    if (!index.has(s.id)) index.set(s.id, i);
  });
  const stateIndex: number[] = [];
  const observed: number[] = [];
  const runs: number[] = [];
  const programs: string[] = [];
  for (const sample of samples) {
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
    stateIndex.push(i);
    observed.push(k);
    runs.push(sampleRun(sample));
    programs.push(sampleProgram(sample));
  }
  const clusters = chooseClusters(programs, familyOf);
  return {
    stateIndex,
    observed,
    runs,
    programs,
    clusters: programs.map(clusters.of),
    clusterUnit: clusters.unit,
    stateClusters: states.map((s) => clusters.of(s.program)),
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
    const valid =
      q.length === EVENT_TYPES.length &&
      q.every((x) => Number.isFinite(x) && x >= 0) &&
      Math.abs(total(q) - 1) <= PROBABILITY_SUM_TOLERANCE;
    if (!valid) {
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
function ceilings(states: readonly State[], table: SampleTable, fallback: number): Ceilings {
  const counts = states.map(countsVector);
  return {
    ceiling: ceilingAccuracy(counts),
    ceilingLoo: leaveOneRunOutCeiling(
      table.stateIndex.map((state, i) => ({ state, run: table.runs[i]!, observed: table.observed[i]! })),
      EVENT_TYPES.length,
      fallback,
    ),
    seenOnce: seenOnceShare(counts),
  };
}

function distributionMetrics(
  states: readonly State[],
  output: PredictorOutput,
  table: SampleTable,
  resamples: number | undefined,
  seed: number | undefined,
) {
  const kl: number[] = [];
  const l1: number[] = [];
  const points: EntropyPoint[] = [];
  const pointClusters: string[] = [];
  const modePredicted: (readonly number[])[] = [];
  const modeCounts: number[][] = [];
  states.forEach((state, i) => {
    const counts = countsVector(state);
    const n = total(counts);
    if (n === 0) return;
    const q = output.predictions[i]!.probabilities;
    const p = empiricalDistribution(counts);
    kl.push(klDivergence(p, q));
    l1.push(l1Distance(p, q));
    modePredicted.push(q);
    modeCounts.push(counts);
    if (n >= MIN_SAMPLES_FOR_ENTROPY) {
      points.push({ predicted: entropy(q), empirical: entropy(p) });
      pointClusters.push(table.stateClusters[i]!);
    }
  });
  const predictedH = points.map((pt) => pt.predicted);
  const empiricalH = points.map((pt) => pt.empirical);
  return {
    modeAccuracy: modeAccuracy(modePredicted, modeCounts),
    kl: mean(kl),
    l1: mean(l1),
    points,
    rho: clusterSpearman(pointClusters, predictedH, empiricalH, { resamples, seed }),
    rhoIndependent: spearman(predictedH, empiricalH),
    r: pearson(predictedH, empiricalH),
    meanPredictedEntropy: mean(predictedH),
    meanEmpiricalEntropy: mean(empiricalH),
  };
}

function scorePredictor(
  states: readonly State[],
  table: SampleTable,
  output: PredictorOutput,
  context: EvaluationContext,
  majority: { readonly label: number; readonly source: "train" | "test" },
  bounds: Ceilings,
): { evaluation: PredictorEvaluation; scores: SampleScores } {
  checkOutput(states, output);
  const probabilities = table.stateIndex.map((i) => output.predictions[i]!.probabilities);
  const credit = probabilities.map((q, i) => tieCredit(q, table.observed[i]!));
  const confusion = confusionMatrix(probabilities, table.observed, EVENT_TYPES.length);
  const perEvent = perEventScores(confusion);
  const dist = distributionMetrics(states, output, table, context.bootstrapResamples, context.bootstrapSeed);
  // Both intervals use the same seed and clusters, hence the same resamples.
  const bootstrap = { resamples: context.bootstrapResamples, seed: context.bootstrapSeed };
  const evaluation: PredictorEvaluation = {
    name: output.name,
    configHash: output.configHash,
    abstraction: context.abstraction,
    holdout: context.holdout,
    states: states.length,
    samples: table.observed.length,
    programs: new Set(table.programs).size,
    clusterUnit: table.clusterUnit,
    accuracy: accuracy(probabilities, table.observed),
    accuracyInterval: clusterBootstrapMeanDifference(
      table.clusters,
      credit,
      credit.map(() => 0),
      bootstrap,
    ),
    modeAccuracy: dist.modeAccuracy,
    ceiling: bounds.ceiling,
    ceilingLoo: bounds.ceilingLoo,
    seenOnce: bounds.seenOnce,
    majority: majorityAccuracy(table.observed, majority.label),
    majorityClass: EVENT_TYPES[majority.label]!,
    majoritySource: majority.source,
    macroF1: macroF1(Object.values(perEvent)),
    perEvent,
    confusion,
    ece: expectedCalibrationError(probabilities, table.observed),
    eceInterval: expectedCalibrationErrorInterval(table.clusters, probabilities, table.observed, bootstrap),
    reliability: reliabilityBins(probabilities, table.observed),
    brier: brierScore(probabilities, table.observed),
    nll: negativeLogLikelihood(probabilities, table.observed),
    kl: dist.kl,
    l1: dist.l1,
    entropySpearman: dist.rho.rho,
    entropySpearmanP: dist.rho.pValue,
    entropySpearmanInterval: dist.rho.interval,
    entropySpearmanPIndependent: dist.rhoIndependent.pValue,
    entropyPearson: dist.r.r,
    entropyPearsonPIndependent: dist.r.pValue,
    entropyStates: dist.points.length,
    meanPredictedEntropy: dist.meanPredictedEntropy,
    meanEmpiricalEntropy: dist.meanEmpiricalEntropy,
    entropyPoints: dist.points,
  };
  const scores: SampleScores = {
    name: output.name,
    abstraction: context.abstraction,
    holdout: context.holdout,
    clusters: table.clusters,
    clusterUnit: table.clusterUnit,
    programs: table.programs, // (added with compare's program leads, so both sides compare alike)
    credit,
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
export function evaluateBefore(
  states: readonly State[],
  samples: readonly EvaluationSample[],
  outputs: readonly PredictorOutput[],
  context: EvaluationContext,
): EvaluationResult {
  const table = resolveSamples(states, samples, context.familyOf);
  const majority =
    context.majorityClass !== undefined
      ? { label: eventIndex(context.majorityClass), source: "train" as const }
      : { label: majorityLabel(table.observed, EVENT_TYPES.length), source: "test" as const };
  const bounds = ceilings(states, table, majority.label);
  const scored = outputs.map((o) => scorePredictor(states, table, o, context, majority, bounds));
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
