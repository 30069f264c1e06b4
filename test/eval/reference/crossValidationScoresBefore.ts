// REFERENCE ONLY: crossValidationScores() of src/eval/cv.ts before it scored from per-cluster
// sums (per-sample arrays of credit, NLL, coverage and probability rows, one pass per metric),
// kept verbatim so tests can check that the sufficient-statistics version gives bit-identical
// results. Not used by src/.

import { ceilingAccuracy, leaveOneRunOutCeilingOfColumns } from "../../../src/dataset/ceiling.js";
import { EVENT_TYPES, type EventType } from "../../../src/core/index.js";
import { compare } from "../../../src/eval/compare.js";
import { chooseClusters } from "../../../src/eval/evaluate.js";
import {
  CONFORMAL_COVERAGE,
  CV_REFERENCE,
  type ConformalScores,
  type CrossValidatedPredictor,
  type CrossValidationScores,
  type PooledFolds,
  type ReferenceDifference,
  type ScoreOptions,
} from "../../../src/eval/cv.js";
import type { SampleScores } from "../../../src/eval/types.js";
import { brierScore } from "../../../src/metrics/brierScore.js";
import { classScores } from "../../../src/metrics/classScores.js";
import {
  clusterBootstrapMeanDifference,
  clusterBootstrapMeanDifferenceOfSums,
  type BootstrapOptions,
} from "../../../src/metrics/clusterBootstrap.js";
import { labelScore, predictionSet } from "../../../src/metrics/conformalPredictionSet.js";
import { confusionMatrix } from "../../../src/metrics/confusionMatrix.js";
import { expectedCalibrationErrorOfBins } from "../../../src/metrics/expectedCalibrationError.js";
import { expectedCalibrationErrorInterval } from "../../../src/metrics/expectedCalibrationErrorInterval.js";
import { macroF1 } from "../../../src/metrics/macroF1.js";
import { majorityAccuracy } from "../../../src/metrics/majorityAccuracy.js";
import { negativeLogLikelihood } from "../../../src/metrics/negativeLogLikelihood.js";
import { overconfidenceOfBins } from "../../../src/metrics/overconfidence.js";
import { reliabilityBins } from "../../../src/metrics/reliabilityBins.js";
import { tieCredit } from "../../../src/metrics/tieCredit.js";

const K = EVENT_TYPES.length;

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
/** The scores as they were before the family and program means: without the fields added since. */
export type FormerPredictor = Omit<CrossValidatedPredictor, "means" | "otherRunsMeans" | "otherRunsFamilies">;
export type FormerScores = Omit<CrossValidationScores, "concentration" | "families" | "predictors"> & {
  readonly predictors: readonly FormerPredictor[];
};

export function crossValidationScoresBefore(pooled: PooledFolds, options: ScoreOptions): FormerScores {
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
  const predictors = pooled.outputs.map((output): FormerPredictor => {
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
