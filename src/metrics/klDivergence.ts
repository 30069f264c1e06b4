// Kullback–Leibler divergence KL(p̂ ‖ q) of the predicted from the empirical distribution, in nats.

import { PROBABILITY_FLOOR } from "./probabilityFloor.js";

/**
 * Σ_k p_k · ln(p_k / max(q_k, ε)), over the k with p_k > 0 (0 · ln 0 = 0).
 * `p` is the empirical distribution p̂, `q` the prediction. The floor ε (default
 * 1e-12) keeps the divergence finite when q gives an observed event zero mass.
 *
 * @param p empirical distribution (sums to 1)
 * @param q predicted distribution (same length)
 * @param epsilon probability floor for q
 * @returns divergence in nats, ≥ 0 up to the floor
 * @example klDivergence([0.5, 0.5], [0.25, 0.75]) // => 0.5·ln 2 + 0.5·ln(2/3) ≈ 0.1438
 */
export function klDivergence(p: readonly number[], q: readonly number[], epsilon = PROBABILITY_FLOOR): number {
  if (p.length !== q.length) throw new RangeError("klDivergence: vectors differ in length");
  let total = 0;
  for (let k = 0; k < p.length; k++) {
    const pk = p[k]!;
    if (pk > 0) total += pk * Math.log(pk / Math.max(q[k]!, epsilon));
  }
  return total;
}
