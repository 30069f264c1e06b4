// The p-value of a correlation coefficient under the null of no association.

import { studentTTwoSidedPValue } from "./studentTTwoSidedPValue.js";

/**
 * Two-sided p-value of a sample correlation r from n pairs, using the statistic
 * t = r·√((n − 2)/(1 − r²)) with n − 2 degrees of freedom. This is exact for
 * Pearson's r under bivariate normality; for Spearman's ρ it is the usual
 * large-sample approximation (good from about n = 10; for smaller n treat it as
 * indicative). |r| = 1 gives 0.
 *
 * @param r correlation in [−1, 1]
 * @param n number of pairs
 * @returns p-value in [0, 1]; NaN when n < 3 or r is NaN
 * @example correlationPValue(0.5, 10) // ≈ 0.1411
 */
export function correlationPValue(r: number, n: number): number {
  if (Number.isNaN(r) || n < 3) return NaN;
  if (Math.abs(r) >= 1) return 0;
  const t = r * Math.sqrt((n - 2) / (1 - r * r));
  return studentTTwoSidedPValue(t, n - 2);
}
