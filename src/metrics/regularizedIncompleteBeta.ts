// The regularized incomplete beta function I_x(a, b), for Student-t tail probabilities.

import { gammaln } from "simple-statistics";

/**
 * I_x(a, b) = B(x; a, b) / B(a, b), evaluated with the continued fraction of
 * Numerical Recipes (modified Lentz), using the symmetry I_x(a,b) = 1 − I_{1−x}(b,a)
 * where the fraction converges slowly. Accurate to about 1e-12 relative.
 *
 * @param x in [0, 1]
 * @param a > 0
 * @param b > 0
 * @example regularizedIncompleteBeta(0.5, 2, 2) // => 0.5
 * @example regularizedIncompleteBeta(0.3, 1, 1) // => 0.3
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0)) throw new RangeError("regularizedIncompleteBeta: a and b must be positive");
  if (Number.isNaN(x)) return NaN;
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const logFront = gammaln(a + b) - gammaln(a) - gammaln(b) + a * Math.log(x) + b * Math.log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(logFront) * betaContinuedFraction(x, a, b)) / a;
  return 1 - (Math.exp(logFront) * betaContinuedFraction(1 - x, b, a)) / b;
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  const maxIterations = 300;
  const tolerance = 1e-15;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= maxIterations; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < tolerance) break;
  }
  return h;
}
