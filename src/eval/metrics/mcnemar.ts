// McNemar's paired test: do two predictors err on different samples more than chance allows?

import { gammaln } from "simple-statistics";
import { complementaryErrorFunction } from "./complementaryErrorFunction.js";

/** Below this many discordant pairs the exact binomial test is used. */
export const MCNEMAR_EXACT_BELOW = 25;

export interface McNemarResult {
  /** Samples A got right and B got wrong. */
  readonly onlyA: number;
  /** Samples B got right and A got wrong. */
  readonly onlyB: number;
  /** "exact": two-sided binomial test on the discordant pairs; "chi-square": with continuity correction. */
  readonly method: "exact" | "chi-square";
  /** χ² = (|b − c| − 1)² / (b + c) for "chi-square"; min(b, c) for "exact". */
  readonly statistic: number;
  readonly pValue: number;
}

/**
 * McNemar's test on paired correctness. With n = b + c discordant pairs:
 * n < 25 → exact two-sided binomial p = min(1, 2·P(X ≤ min(b, c))), X ~ Bin(n, ½);
 * otherwise χ² with Yates' continuity correction, 1 degree of freedom.
 * n = 0 gives p = 1.
 *
 * @param correctA whether A was right, per sample
 * @param correctB whether B was right, per sample (same samples, same order)
 * @example mcnemar([true, true, true, false], [false, false, false, false])
 * // => {onlyA: 3, onlyB: 0, method: "exact", statistic: 0, pValue: 0.25}
 */
export function mcnemar(correctA: readonly boolean[], correctB: readonly boolean[]): McNemarResult {
  if (correctA.length !== correctB.length) throw new RangeError("mcnemar: arrays differ in length");
  let b = 0;
  let c = 0;
  for (let i = 0; i < correctA.length; i++) {
    if (correctA[i] && !correctB[i]) b++;
    else if (!correctA[i] && correctB[i]) c++;
  }
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
  return { onlyA: b, onlyB: c, method: "chi-square", statistic, pValue: complementaryErrorFunction(Math.sqrt(statistic / 2)) };
}
