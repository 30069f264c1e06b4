// The confidence statement of a finding: an exact (Clopper–Pearson) one-sided upper bound
// on a probability from x successes in n independent trials. Pure functions.

/**
 * P(X ≤ x) for X ~ Binomial(n, p), summed in log space so large n stays accurate.
 * Example: binomialCdf(0, 3, 0.5) = 0.125.
 */
export function binomialCdf(x: number, n: number, p: number): number {
  if (x >= n) return 1;
  if (x < 0) return 0;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  let logTerm = n * Math.log1p(-p); // k = 0
  let sum = Math.exp(logTerm);
  for (let k = 1; k <= x; k++) {
    logTerm += Math.log((n - k + 1) / k) + Math.log(p) - Math.log1p(-p);
    sum += Math.exp(logTerm);
  }
  return Math.min(1, sum);
}

/**
 * One-sided Clopper–Pearson upper bound at `confidence` (default 0.95) on p from x
 * successes in n trials: the largest p with P(X ≤ x; n, p) ≥ 1 − confidence. With x = 0
 * it is 1 − (1 − confidence)^(1/n) exactly (≈ 3/n at 95 %, the "rule of three"); with
 * n = 0 nothing is known and the bound is 1.
 * Example: clopperPearsonUpper(0, 5) = 1 − 0.05^(1/5) ≈ 0.4507.
 */
export function clopperPearsonUpper(x: number, n: number, confidence = 0.95): number {
  if (!Number.isInteger(x) || !Number.isInteger(n) || x < 0 || n < 0 || x > n) {
    throw new RangeError(`clopperPearsonUpper needs integers 0 ≤ x ≤ n, got x=${x} n=${n}`);
  }
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  if (n === 0 || x === n) return 1;
  const alpha = 1 - confidence;
  if (x === 0) return 1 - Math.pow(alpha, 1 / n);
  // The CDF falls monotonically in p: bisect for P(X ≤ x; n, p) = alpha.
  let low = x / n;
  let high = 1;
  for (let i = 0; i < 80; i++) {
    const mid = (low + high) / 2;
    if (binomialCdf(x, n, mid) > alpha) low = mid;
    else high = mid;
  }
  return high;
}
