// Post-hoc calibration of a predictor's distribution (pure): temperature scaling mixed with
// a prior, q = (1 − α)·softmax(z / T) + α·prior, with (T, α) fitted on validation NLL. Students
// are calibrated with it at training time, and `cal:SPEC` calibrates any other predictor the
// same way (docs/predictors.md), so baselines and students are compared on equal terms.

/** Rows of soft targets with sample counts: what a calibration is fitted against. */
export interface CalibrationTargets {
  readonly rows: number;
  /** rows × classes target distributions (p̂ of a state, or a one-hot label). */
  readonly events: Float64Array;
  /** Samples each row stands for (its weight in the NLL). */
  readonly counts: Float64Array;
}

/** In-place softmax of `v[0 .. n)` at temperature `t`. */
export function softmaxInPlace(v: Float64Array, n: number, t = 1): void {
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (v[i] / t > max) max = v[i] / t;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    v[i] = Math.exp(v[i] / t - max);
    sum += v[i];
  }
  for (let i = 0; i < n; i++) v[i] /= sum;
}

/**
 * How a student turns event logits z into probabilities:
 * q = (1 − priorWeight)·softmax(z / temperature) + priorWeight·prior.
 * Invariant: temperature > 0, 0 ≤ priorWeight < 1, prior is a distribution over the classes.
 * priorWeight 0 is plain temperature scaling.
 */
export interface Calibration {
  readonly temperature: number;
  readonly priorWeight: number;
  readonly prior: ArrayLike<number>;
}

/** Plain temperature scaling (priorWeight 0). */
export function temperatureOnly(temperature: number, classes: number): Calibration {
  return { temperature, priorWeight: 0, prior: new Float64Array(classes).fill(1 / classes) };
}

/** Replaces the logits `v[0 .. n)` with the calibrated distribution. */
export function calibrateInPlace(v: Float64Array, n: number, c: Calibration): void {
  softmaxInPlace(v, n, c.temperature);
  if (c.priorWeight === 0) return;
  for (let i = 0; i < n; i++) v[i] = (1 - c.priorWeight) * v[i] + c.priorWeight * c.prior[i];
}

/**
 * Count-weighted NLL per sample of logits (rows × classes) after `calibrate` turns each row
 * (row r at offset r·classes) into a distribution in place.
 */
export function nllOf(
  logits: Float64Array,
  m: CalibrationTargets,
  classes: number,
  calibrate: (q: Float64Array, offset: number) => void,
): number {
  const q = new Float64Array(classes);
  let total = 0;
  let weight = 0;
  for (let r = 0; r < m.rows; r++) {
    if (m.counts[r] === 0) continue;
    for (let c = 0; c < classes; c++) q[c] = logits[r * classes + c];
    calibrate(q, r * classes);
    let ce = 0;
    for (let c = 0; c < classes; c++) {
      const target = m.events[r * classes + c];
      if (target > 0) ce -= target * Math.log(Math.max(q[c], 1e-12));
    }
    total += m.counts[r] * ce;
    weight += m.counts[r];
  }
  return weight > 0 ? total / weight : 0;
}

/** Count-weighted NLL per sample of calibrated logits (temperature `t`, or a full calibration). */
export function nllOfLogits(
  logits: Float64Array,
  m: CalibrationTargets,
  classes: number,
  t: number | Calibration,
): number {
  const calibration = typeof t === "number" ? temperatureOnly(t, classes) : t;
  return nllOf(logits, m, classes, (q) => calibrateInPlace(q, classes, calibration));
}

/** The temperature in [0.05, 20] minimising `loss` (golden-section search on log T). */
export function goldenTemperature(loss: (t: number) => number, iterations: number): number {
  let lo = Math.log(0.05);
  let hi = Math.log(20);
  const g = (Math.sqrt(5) - 1) / 2;
  let a = hi - g * (hi - lo);
  let b = lo + g * (hi - lo);
  let fa = loss(Math.exp(a));
  let fb = loss(Math.exp(b));
  for (let i = 0; i < iterations; i++) {
    if (fa < fb) {
      hi = b;
      b = a;
      fb = fa;
      a = hi - g * (hi - lo);
      fa = loss(Math.exp(a));
    } else {
      lo = a;
      a = b;
      fa = fb;
      b = lo + g * (hi - lo);
      fb = loss(Math.exp(b));
    }
  }
  return Math.exp((lo + hi) / 2);
}

/**
 * Of the calibrations `at` builds for each prior weight of `grid`, each at its best
 * temperature (goldenTemperature), the one with the lowest `loss`; a later weight replaces an
 * earlier one only if it lowers the loss by more than 1e-9, so with 0 first the fit is never
 * worse than temperature scaling alone.
 */
export function fitOverPriorWeights<C extends Calibration>(
  grid: readonly number[],
  at: (temperature: number, priorWeight: number) => C,
  loss: (c: C) => number,
  iterations: number,
): C {
  let best: C | null = null;
  let bestLoss = Infinity;
  for (const priorWeight of grid) {
    const candidate = at(
      goldenTemperature((t) => loss(at(t, priorWeight)), iterations),
      priorWeight,
    );
    const candidateLoss = loss(candidate);
    if (best === null || candidateLoss < bestLoss - 1e-9) {
      best = candidate;
      bestLoss = candidateLoss;
    }
  }
  if (best === null) throw new Error("fitOverPriorWeights needs a non-empty grid");
  return best;
}

/** Grid of prior weights fitCalibration tries: 0, 0.02, …, 0.98. */
const PRIOR_WEIGHTS = Array.from({ length: 50 }, (_, i) => i / 50);

/**
 * The calibration minimising validation NLL: for each prior weight α on a grid of 0.02 steps
 * in [0, 0.98], the best temperature, then the (T, α) pair with the lowest NLL; α = 0
 * (temperature scaling alone) unless mixing in the prior lowers the NLL.
 */
export function fitCalibration(
  logits: Float64Array,
  m: CalibrationTargets,
  classes: number,
  prior: ArrayLike<number>,
): Calibration {
  if (m.rows === 0) return temperatureOnly(1, classes);
  return fitOverPriorWeights(
    PRIOR_WEIGHTS,
    (temperature, priorWeight) => ({ temperature, priorWeight, prior }),
    (c) => nllOfLogits(logits, m, classes, c),
    60,
  );
}

/**
 * The temperature in [0.05, 20] minimising validation NLL, of plain temperature scaling or of
 * the calibration `at(T)` builds; 1 with nothing to fit on.
 */
export function fitTemperature(
  logits: Float64Array,
  m: CalibrationTargets,
  classes: number,
  at: (t: number) => number | Calibration = (t) => t,
): number {
  if (m.rows === 0) return 1;
  return goldenTemperature((t) => nllOfLogits(logits, m, classes, at(t)), 60);
}

/** Logits of probability vectors: ln(max(q, 1e-12)), so calibrateInPlace(T = 1, α = 0) returns q. */
export function logitsOfProbabilities(probabilities: readonly (readonly number[])[], classes: number): Float64Array {
  const z = new Float64Array(probabilities.length * classes);
  probabilities.forEach((q, r) => {
    for (let c = 0; c < classes; c++) z[r * classes + c] = Math.log(Math.max(q[c], 1e-12));
  });
  return z;
}
