// McNemar's paired test: do two predictors err on different samples more than chance allows?

import { gammaln } from "simple-statistics";
import { complementaryErrorFunction } from "./complementaryErrorFunction.js";

/** Below this many discordant pairs the exact binomial test is used. */
export const MCNEMAR_EXACT_BELOW = 25;

export interface McNemarResult {
  /** Samples A got right and B got wrong (credit differences, rounded). */
  readonly onlyA: number;
  /** Samples B got right and A got wrong (credit differences, rounded). */
  readonly onlyB: number;
  /** "exact": two-sided binomial test on the discordant pairs; "chi-square": with continuity correction. */
  readonly method: "exact" | "chi-square";
  /** χ² = (|b − c| − 1)² / (b + c) for "chi-square"; min(b, c) for "exact". */
  readonly statistic: number;
  readonly pValue: number;
}

/**
 * McNemar's test on paired correctness. It treats every sample as independent, which samples
 * of one program (and family) are not: report it only labelled as such, beside the cluster
 * sign-flip test (clusterSignFlipTest). Scores are tie credits in [0, 1]; the discordant
 * counts are b = Σ max(0, a_i − b_i) and c = Σ max(0, b_i − a_i), rounded to whole samples
 * (with 0/1 scores: the samples only A, or only B, got right). With n = b + c:
 * n < 25 → exact two-sided binomial p = min(1, 2·P(X ≤ min(b, c))), X ~ Bin(n, ½);
 * otherwise χ² with Yates' continuity correction, 1 degree of freedom.
 * n = 0 gives p = 1.
 *
 * @param scoreA A's credit per sample
 * @param scoreB B's credit per sample (same samples, same order)
 * @example mcnemar([1, 1, 1, 0], [0, 0, 0, 0])
 * // => {onlyA: 3, onlyB: 0, method: "exact", statistic: 0, pValue: 0.25}
 */
export function mcnemar(scoreA: readonly number[], scoreB: readonly number[]): McNemarResult {
  if (scoreA.length !== scoreB.length) throw new RangeError("mcnemar: arrays differ in length");
  let onlyA = 0;
  let onlyB = 0;
  for (let i = 0; i < scoreA.length; i++) {
    const d = scoreA[i]! - scoreB[i]!;
    if (d > 0) onlyA += d;
    else onlyB -= d;
  }
  const b = Math.round(onlyA);
  const c = Math.round(onlyB);
  const n = b + c;
  if (n < MCNEMAR_EXACT_BELOW) {
    const low = Math.min(b, c);
    let tail = 0;
    for (let i = 0; i <= low && n > 0; i++) {
      tail += Math.exp(gammaln(n + 1) - gammaln(i + 1) - gammaln(n - i + 1) - n * Math.LN2);
    }
    return { onlyA: b, onlyB: c, method: "exact", statistic: low, pValue: n === 0 ? 1 : Math.min(1, 2 * tail) };
  }
  const statistic = (Math.abs(b - c) - 1) ** 2 / n;
  // Survival of χ² with 1 degree of freedom: P(χ² > s) = erfc(√(s/2)).
  return {
    onlyA: b,
    onlyB: c,
    method: "chi-square",
    statistic,
    pValue: complementaryErrorFunction(Math.sqrt(statistic / 2)),
  };
}
