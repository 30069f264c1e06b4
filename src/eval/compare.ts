// Paired comparison of two predictors scored on the same samples: McNemar's test and
// a program-cluster bootstrap interval on the accuracy difference.

import { clusterBootstrapMeanDifference } from "./metrics/clusterBootstrap.js";
import type { BootstrapOptions } from "./metrics/clusterBootstrap.js";
import { mcnemar } from "./metrics/mcnemar.js";
import { EvaluationInputError } from "./errors.js";
import type { PredictorComparison, SampleScores } from "./types.js";

const asNumbers = (correct: readonly boolean[]): number[] => correct.map((c) => (c ? 1 : 0));

/**
 * Compares A with B on the samples both were scored on (they must be the same samples
 * in the same order, as `evaluate` produces them). The bootstrap resamples programs,
 * not samples: see clusterBootstrapMeanDifference for why.
 */
export function compare(a: SampleScores, b: SampleScores, options: BootstrapOptions = {}): PredictorComparison {
  const sameSamples =
    a.correct.length === b.correct.length &&
    a.abstraction === b.abstraction &&
    a.holdout === b.holdout &&
    a.programs.every((p, i) => p === b.programs[i]);
  if (!sameSamples) {
    throw new EvaluationInputError(
      `cannot compare ${a.name} with ${b.name}: they were scored on different samples`,
      "Evaluate both predictors in one `schedlab eval` call (same --abstraction and --holdout) to compare them.",
    );
  }
  const correctA = asNumbers(a.correct);
  const correctB = asNumbers(b.correct);
  const mean = (xs: number[]): number => (xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length);
  return {
    a: a.name,
    b: b.name,
    abstraction: a.abstraction,
    holdout: a.holdout,
    accuracyA: mean(correctA),
    accuracyB: mean(correctB),
    difference: clusterBootstrapMeanDifference(a.programs, correctA, correctB, options),
    mcnemar: mcnemar(a.correct, b.correct),
  };
}
