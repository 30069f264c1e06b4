// Macro-averaged F1 over the classes that can be scored.

import type { ClassScores } from "./classScores.js";

/**
 * Unweighted mean of per-class F1. A class that neither occurred nor was predicted
 * (support 0 and no predictions) has no F1 and is left out of the mean, so a test
 * split without, say, any GoSched does not drag every predictor down by a sixth.
 * A class that occurred but was never predicted, or was predicted but never
 * occurred, counts with F1 = 0.
 *
 * @param scores per-class scores from classScores
 * @returns macro-F1 in [0, 1]; NaN when no class can be scored
 * @example macroF1([{f1: 1}, {f1: 0}, {f1: NaN}]) // => 0.5
 */
export function macroF1(scores: readonly Pick<ClassScores, "f1">[]): number {
  const defined = scores.filter((s) => !Number.isNaN(s.f1));
  if (defined.length === 0) return NaN;
  return defined.reduce((sum, s) => sum + s.f1, 0) / defined.length;
}
