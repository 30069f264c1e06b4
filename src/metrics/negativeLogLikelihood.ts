// Negative log-likelihood (log loss) of the observed labels, in nats.

import { PROBABILITY_FLOOR } from "./probabilityFloor.js";

/**
 * Mean over samples of −ln max(q_y, ε), with y the observed label and ε the
 * probability floor (default 1e-12), so a zero probability costs ≈ 27.6 nats
 * instead of infinity.
 *
 * @param probabilities predicted distribution per sample
 * @param observed observed class index per sample
 * @param epsilon probability floor
 * @returns mean NLL in nats, ≥ 0; NaN for no samples
 * @example negativeLogLikelihood([[0.5, 0.5], [0.25, 0.75]], [0, 1]) // => (ln 2 + ln(4/3)) / 2 ≈ 0.4904
 */
export function negativeLogLikelihood(
  probabilities: readonly (readonly number[])[],
  observed: readonly number[],
  epsilon = PROBABILITY_FLOOR,
): number {
  if (probabilities.length !== observed.length) throw new RangeError("negativeLogLikelihood: arrays differ in length");
  if (probabilities.length === 0) return NaN;
  let total = 0;
  for (let i = 0; i < probabilities.length; i++) {
    total -= Math.log(Math.max(probabilities[i]![observed[i]!] ?? 0, epsilon));
  }
  return total / probabilities.length;
}
