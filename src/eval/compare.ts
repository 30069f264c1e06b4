// Paired comparison of two predictors scored on the same samples: a cluster bootstrap
// interval on the accuracy difference and the cluster sign-flip test as its p-value, with
// McNemar's test kept beside it, labelled as assuming independent samples.

import {
  type BootstrapOptions,
  clusterBootstrapMeanDifference,
  clusterSignFlipTest,
  mcnemar,
} from "../metrics/index.js";
import { EvaluationInputError } from "./errors.js";
import type { PredictorComparison, SampleScores } from "./types.js";

/**
 * Compares A with B on the samples both were scored on (they must be the same samples
 * in the same order, as `evaluate` produces them). The bootstrap and the test resample
 * clusters (families, or programs), not samples: see clusterBootstrapMeanDifference for why.
 */
export function compare(a: SampleScores, b: SampleScores, options: BootstrapOptions = {}): PredictorComparison {
  const sameSamples =
    a.credit.length === b.credit.length &&
    a.abstraction === b.abstraction &&
    a.holdout === b.holdout &&
    // evaluate gives every predictor the same cluster array, so the element check is the exception.
    (a.clusters === b.clusters || a.clusters.every((p, i) => p === b.clusters[i]));
  if (!sameSamples) {
    throw new EvaluationInputError(
      `cannot compare ${a.name} with ${b.name}: they were scored on different samples`,
      "Evaluate both predictors in one `schedlab eval` call (same --abstraction and --holdout) to compare them.",
    );
  }
  const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length);
  return {
    a: a.name,
    b: b.name,
    abstraction: a.abstraction,
    holdout: a.holdout,
    accuracyA: mean(a.credit),
    accuracyB: mean(b.credit),
    difference: clusterBootstrapMeanDifference(a.clusters, a.credit, b.credit, options),
    clusterTest: clusterSignFlipTest(a.clusters, a.credit, b.credit, {
      resamples: options.resamples,
      seed: options.seed,
    }),
    clusterUnit: a.clusterUnit,
    mcnemarIndependent: mcnemar(a.credit, b.credit),
  };
}
