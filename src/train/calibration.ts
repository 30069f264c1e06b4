// The student's calibration (pure): q = F((1 − α)·softmax(z / T) + α·prior), the
// temperature-and-prior family of src/predict/calibration.ts followed by the adapter's rule F
// for events the prefix rules out (src/train/feasibility.ts). (T, α) are fitted on the
// validation families' NLL, with F applied: for each α on a grid the best T by golden section.

import { calibrateInPlace, type Calibration, type CalibrationTargets } from "../predict/calibration.js";
import { capInfeasible, topFeasible } from "./feasibility.js";

export type { Calibration };

/** Prior weights tried: fine near 0, where most fits land, coarser further out. */
export const PRIOR_WEIGHT_GRID: readonly number[] = [0, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];

/**
 * What a student does with events its prefix rules out (src/train/feasibility.ts): nothing,
 * make the top event a feasible one (topFeasible), or cap their total probability.
 */
export const FEASIBILITY_RULES = ["none", "top", "cap"] as const;
export type FeasibilityRule = (typeof FEASIBILITY_RULES)[number];

/** A calibration and the adapter's feasibility rule (the cap is used by "cap" only). */
export interface StudentCalibration extends Calibration {
  readonly feasibility: FeasibilityRule;
  readonly infeasibleCap: number;
}

/**
 * Replaces the logits q[0 .. classes) with the calibrated distribution; with a cap and the
 * row's feasible flags (feasible[maskAt ..]), infeasible events share at most the cap.
 */
export function calibrateRow(q: Float64Array, classes: number, c: Calibration | StudentCalibration, feasible: Uint8Array | null, maskAt: number): void {
  calibrateInPlace(q, classes, c);
  if (feasible === null || !("feasibility" in c)) return;
  if (c.feasibility === "cap") capInfeasible(q, 0, feasible, maskAt, c.infeasibleCap);
  else if (c.feasibility === "top") topFeasible(q, 0, feasible, maskAt);
}

/** Count-weighted NLL per sample of calibrated logits (rows × classes). */
export function calibratedNll(logits: Float64Array, m: CalibrationTargets, classes: number, c: Calibration | StudentCalibration, feasible: Uint8Array | null): number {
  const q = new Float64Array(classes);
  let total = 0;
  let weight = 0;
  for (let r = 0; r < m.rows; r++) {
    if (m.counts[r] === 0) continue;
    for (let k = 0; k < classes; k++) q[k] = logits[r * classes + k];
    calibrateRow(q, classes, c, feasible, r * classes);
    let ce = 0;
    for (let k = 0; k < classes; k++) {
      const target = m.events[r * classes + k];
      if (target > 0) ce -= target * Math.log(Math.max(q[k], 1e-12));
    }
    total += m.counts[r] * ce;
    weight += m.counts[r];
  }
  return weight > 0 ? total / weight : 0;
}

/** The temperature in [0.05, 20] minimising `loss` (golden-section search on log T). */
export function goldenTemperature(loss: (t: number) => number, iterations = 40): number {
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
 * The (T, α) with the lowest validation NLL over PRIOR_WEIGHT_GRID (α = 0 is temperature
 * scaling alone, so the fit is never worse than it). Nothing to fit on gives T = 1, α = 0.
 */
export function fitStudentCalibration(
  logits: Float64Array,
  m: CalibrationTargets,
  classes: number,
  prior: ArrayLike<number>,
  feasible: Uint8Array | null,
  rule: Pick<StudentCalibration, "feasibility" | "infeasibleCap">,
): StudentCalibration {
  const { feasibility, infeasibleCap } = rule;
  let best: StudentCalibration = { temperature: 1, priorWeight: 0, prior, feasibility, infeasibleCap };
  if (m.rows === 0) return best;
  let bestLoss = Infinity;
  for (const priorWeight of PRIOR_WEIGHT_GRID) {
    const at = (temperature: number): StudentCalibration => ({ temperature, priorWeight, prior, feasibility, infeasibleCap });
    const temperature = goldenTemperature((t) => calibratedNll(logits, m, classes, at(t), feasible));
    const loss = calibratedNll(logits, m, classes, at(temperature), feasible);
    if (loss < bestLoss - 1e-9) {
      best = at(temperature);
      bestLoss = loss;
    }
  }
  return best;
}
