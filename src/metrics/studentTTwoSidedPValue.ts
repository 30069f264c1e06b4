// Two-sided tail probability of Student's t distribution.

import { regularizedIncompleteBeta } from "./regularizedIncompleteBeta.js";

/**
 * P(|T| ≥ |t|) for T ~ Student-t with `degreesOfFreedom` degrees of freedom,
 * computed exactly as I_{ν/(ν+t²)}(ν/2, 1/2).
 *
 * @param t the statistic
 * @param degreesOfFreedom ν > 0
 * @returns p-value in [0, 1]
 * @example studentTTwoSidedPValue(2.306, 8) // ≈ 0.05
 */
export function studentTTwoSidedPValue(t: number, degreesOfFreedom: number): number {
  if (Number.isNaN(t) || !(degreesOfFreedom > 0)) return NaN;
  if (!Number.isFinite(t)) return 0;
  const nu = degreesOfFreedom;
  return regularizedIncompleteBeta(nu / (nu + t * t), nu / 2, 0.5);
}
