// Fractional credit for a prediction whose top label is tied: a tie of m labels earns 1/m
// when the observed label is one of them, so an undecided predictor is not scored as if it
// had chosen the lowest index.

import { topLabels } from "./topLabel.js";

/**
 * 1/m when `observed` is one of the m labels tied for the top of `probabilities`, else 0.
 * Every accuracy, per-event score, ECE and reliability bin uses this credit, so the
 * uniform predictor scores exactly 1/6 and is perfectly calibrated at confidence 1/6.
 *
 * @example tieCredit([0.5, 0.5, 0], 1) // => 0.5
 * @example tieCredit([0.2, 0.7, 0.1], 0) // => 0
 */
export function tieCredit(probabilities: readonly number[], observed: number): number {
  const tied = topLabels(probabilities);
  return tied.includes(observed) ? 1 / tied.length : 0;
}
