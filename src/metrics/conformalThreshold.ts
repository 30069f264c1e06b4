// The split-conformal threshold: the score quantile that makes prediction sets cover a share
// of new samples, from the nonconformity scores of held-out calibration samples.

/**
 * Split conformal prediction (Vovk et al.; Angelopoulos & Bates 2021, §1): with n calibration
 * scores, the ⌈(n + 1)·coverage⌉-th smallest score t̂. A set {k : score_k ≤ t̂} then contains
 * a new exchangeable sample's label with probability ≥ coverage. Scores may carry integer
 * weights (a state's sample count): a score of weight w counts as w equal scores. When
 * ⌈(n + 1)·coverage⌉ > n no calibration score is large enough and the threshold is +∞ (the set
 * is every label); with no calibration samples it is +∞ too.
 *
 * @param scores nonconformity score per calibration sample (or per group of equal samples)
 * @param coverage target coverage in (0, 1), e.g. 0.9
 * @param weights how many samples each score stands for (default 1 each); non-negative integers
 * @returns t̂, a calibration score or +∞
 * @example conformalThreshold([0.1, 0.2, 0.3, 0.4], 0.5) // => ⌈5·0.5⌉ = 3rd smallest = 0.3
 */
export function conformalThreshold(scores: readonly number[], coverage: number, weights?: readonly number[]): number {
  if (!(coverage > 0 && coverage < 1)) throw new RangeError("conformalThreshold: coverage must be in (0, 1)");
  if (weights !== undefined && weights.length !== scores.length)
    throw new RangeError("conformalThreshold: scores and weights differ in length");
  const order = scores.map((_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let n = 0;
  for (let i = 0; i < scores.length; i++) {
    const w = weights?.[i] ?? 1;
    if (!(Number.isInteger(w) && w >= 0))
      throw new RangeError("conformalThreshold: weights must be non-negative integers");
    n += w;
  }
  // A small tolerance keeps (n + 1)·coverage from rounding up past an exact integer (e.g. 10·0.9).
  const rank = Math.ceil((n + 1) * coverage - 1e-9);
  if (rank > n) return Infinity;
  let seen = 0;
  for (const i of order) {
    seen += weights?.[i] ?? 1;
    if (seen >= rank) return scores[i]!;
  }
  return Infinity;
}
