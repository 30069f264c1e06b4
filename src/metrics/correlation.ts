// Pearson and Spearman correlation with their p-values.

import { sampleCorrelation, sampleRankCorrelation } from "simple-statistics";
import { correlationPValue } from "./correlationPValue.js";

export interface CorrelationResult {
  /** The coefficient; NaN when fewer than 3 pairs or either side is constant (up to 1e-12 relative). */
  readonly r: number;
  /** Two-sided p-value (see correlationPValue); NaN when r is. */
  readonly pValue: number;
  /** Number of pairs. */
  readonly n: number;
}

/**
 * True when every value equals the first up to rounding: a constant side has no variance,
 * but float rounding in the mean can leave a ~1e-17 "variance" that yields a meaningless r.
 */
function isConstant(xs: ArrayLike<number>): boolean {
  if (xs.length === 0) return true;
  let min = xs[0]!;
  let max = xs[0]!;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return isConstantRange(min, max);
}

/** True when values spanning [min, max] count as constant (the rule of `pearson` and `spearman`): equal up to 1e-12 relative. */
export function isConstantRange(min: number, max: number): boolean {
  return max - min <= 1e-12 * Math.max(1, Math.abs(max), Math.abs(min));
}

function withPValue(r: number, n: number): CorrelationResult {
  const defined = n >= 3 && Number.isFinite(r);
  return { r: defined ? r : NaN, pValue: defined ? correlationPValue(r, n) : NaN, n };
}

/**
 * Pearson's product-moment correlation (simple-statistics sampleCorrelation) and
 * its t-test p-value.
 *
 * @example pearson([1, 2, 3, 4], [2, 4, 6, 8]) // => {r: 1, pValue: 0, n: 4}
 */
export function pearson(x: readonly number[], y: readonly number[]): CorrelationResult {
  if (x.length !== y.length) throw new RangeError("pearson: arrays differ in length");
  return withPValue(x.length < 3 || isConstant(x) || isConstant(y) ? NaN : sampleCorrelation(x, y), x.length);
}

/**
 * Spearman's rank correlation (Pearson on midranks, so ties are handled) and its
 * t-approximation p-value.
 *
 * @example spearman([1, 2, 3, 4], [1, 4, 9, 16]) // => {r: 1, pValue: 0, n: 4}
 */
export function spearman(x: readonly number[], y: readonly number[]): CorrelationResult {
  if (x.length !== y.length) throw new RangeError("spearman: arrays differ in length");
  return withPValue(x.length < 3 || isConstant(x) || isConstant(y) ? NaN : sampleRankCorrelation(x, y), x.length);
}
