// evaluate(): every single-step metric of DESIGN §8 for each predictor on one set of
// states and samples, plus paired comparisons. Pure: arrays in, typed results out.

import type { State } from "../dataset/types.js";
import { EVENT_TYPES, type EventType } from "../trace/types.js";
import { compare } from "./compare.js";
import { EvaluationInputError } from "./errors.js";
import { accuracy } from "./metrics/accuracy.js";
import { brierScore } from "./metrics/brierScore.js";
import { classScores } from "./metrics/classScores.js";
import { clusterBootstrapMeanDifference } from "./metrics/clusterBootstrap.js";
import { confusionMatrix } from "./metrics/confusionMatrix.js";
import { pearson, spearman } from "./metrics/correlation.js";
import { empiricalDistribution } from "./metrics/empiricalDistribution.js";
import { entropy } from "./metrics/entropy.js";
import { expectedCalibrationError } from "./metrics/expectedCalibrationError.js";
import { expectedCalibrationErrorInterval } from "./metrics/expectedCalibrationErrorInterval.js";
import { klDivergence } from "./metrics/klDivergence.js";
import { l1Distance } from "./metrics/l1Distance.js";
import { macroF1 } from "./metrics/macroF1.js";
import { majorityAccuracy, majorityLabel } from "./metrics/majorityAccuracy.js";
import { modeAccuracy } from "./metrics/modeAccuracy.js";
import { negativeLogLikelihood } from "./metrics/negativeLogLikelihood.js";
import { reliabilityBins } from "./metrics/reliabilityBins.js";
import { topLabel } from "./metrics/topLabel.js";
import type {
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

const PROBABILITY_SUM_TOLERANCE = 1e-6;

/** Samples resolved against the states: which state, which observed class, which program. */
interface SampleTable {
  readonly stateIndex: readonly number[];
  readonly observed: readonly number[];
  readonly programs: readonly string[];
}

const eventIndex = (event: EventType): number => EVENT_TYPES.indexOf(event);
const sampleProgram = (s: EvaluationSample): string => ("program" in s ? s.program : s.prefix.program);
const countsVector = (state: State): number[] => EVENT_TYPES.map((e) => state.counts[e]);
const total = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0);
const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : total(xs) / xs.length);

function resolveSamples(states: readonly State[], samples: readonly EvaluationSample[]): SampleTable {
  const index = new Map<string, number>();
  states.forEach((s, i) => {
    if (!index.has(s.id)) index.set(s.id, i);
  });
  const stateIndex: number[] = [];
  const observed: number[] = [];
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
      throw new EvaluationInputError(`sample of state ${sample.stateId} has unknown next event "${sample.next}"`, "Rebuild the dataset.");
    }
    stateIndex.push(i);
    observed.push(k);
    programs.push(sampleProgram(sample));
  }
  return { stateIndex, observed, programs };
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

function distributionMetrics(states: readonly State[], output: PredictorOutput) {
  const kl: number[] = [];
  const l1: number[] = [];
  const points: EntropyPoint[] = [];
  const modePredicted: number[] = [];
  const modeCounts: number[][] = [];
  states.forEach((state, i) => {
    const counts = countsVector(state);
    const n = total(counts);
    if (n === 0) return;
    const q = output.predictions[i]!.probabilities;
    const p = empiricalDistribution(counts);
    kl.push(klDivergence(p, q));
    l1.push(l1Distance(p, q));
    modePredicted.push(topLabel(q));
    modeCounts.push(counts);
    if (n >= MIN_SAMPLES_FOR_ENTROPY) points.push({ predicted: entropy(q), empirical: entropy(p) });
  });
  const predictedH = points.map((pt) => pt.predicted);
  const empiricalH = points.map((pt) => pt.empirical);
  return {
    modeAccuracy: modeAccuracy(modePredicted, modeCounts),
    kl: mean(kl),
    l1: mean(l1),
    points,
    rho: spearman(predictedH, empiricalH),
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
): { evaluation: PredictorEvaluation; scores: SampleScores } {
  checkOutput(states, output);
  const labels = output.predictions.map((p) => topLabel(p.probabilities));
  const modes = states.map((s) => topLabel(countsVector(s)));
  const predicted = table.stateIndex.map((i) => labels[i]!);
  const probabilities = table.stateIndex.map((i) => output.predictions[i]!.probabilities);
  const correct = predicted.map((p, i) => p === table.observed[i]);
  const confusion = confusionMatrix(predicted, table.observed, EVENT_TYPES.length);
  const perEvent = perEventScores(confusion);
  const dist = distributionMetrics(states, output);
  // Both intervals use the same seed and clusters, hence the same program resamples.
  const bootstrap = { resamples: context.bootstrapResamples, seed: context.bootstrapSeed };
  const evaluation: PredictorEvaluation = {
    name: output.name,
    configHash: output.configHash,
    abstraction: context.abstraction,
    holdout: context.holdout,
    states: states.length,
    samples: table.observed.length,
    programs: new Set(table.programs).size,
    accuracy: accuracy(predicted, table.observed),
    accuracyInterval: clusterBootstrapMeanDifference(
      table.programs,
      correct.map((c) => (c ? 1 : 0)),
      correct.map(() => 0),
      bootstrap,
    ),
    modeAccuracy: dist.modeAccuracy,
    ceiling: accuracy(
      table.stateIndex.map((i) => modes[i]!),
      table.observed,
    ),
    majority: majorityAccuracy(table.observed, majority.label),
    majorityClass: EVENT_TYPES[majority.label]!,
    majoritySource: majority.source,
    macroF1: macroF1(Object.values(perEvent)),
    perEvent,
    confusion,
    ece: expectedCalibrationError(probabilities, table.observed),
    eceInterval: expectedCalibrationErrorInterval(table.programs, probabilities, table.observed, bootstrap),
    reliability: reliabilityBins(probabilities, table.observed),
    brier: brierScore(probabilities, table.observed),
    nll: negativeLogLikelihood(probabilities, table.observed),
    kl: dist.kl,
    l1: dist.l1,
    entropySpearman: dist.rho.r,
    entropySpearmanP: dist.rho.pValue,
    entropyPearson: dist.r.r,
    entropyPearsonP: dist.r.pValue,
    entropyStates: dist.points.length,
    meanPredictedEntropy: dist.meanPredictedEntropy,
    meanEmpiricalEntropy: dist.meanEmpiricalEntropy,
    entropyPoints: dist.points,
  };
  const scores: SampleScores = {
    name: output.name,
    abstraction: context.abstraction,
    holdout: context.holdout,
    programs: table.programs,
    correct,
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
  const table = resolveSamples(states, samples);
  const majority =
    context.majorityClass !== undefined
      ? { label: eventIndex(context.majorityClass), source: "train" as const }
      : { label: majorityLabel(table.observed, EVENT_TYPES.length), source: "test" as const };
  const scored = outputs.map((o) => scorePredictor(states, table, o, context, majority));
  const comparisons = [];
  for (let i = 0; i < scored.length; i++) {
    for (let j = i + 1; j < scored.length; j++) {
      comparisons.push(
        compare(scored[i]!.scores, scored[j]!.scores, { resamples: context.bootstrapResamples, seed: context.bootstrapSeed }),
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
