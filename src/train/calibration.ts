// The student's calibration (pure): q = F((1 − α)·softmax(z / T) + α·prior), the
// temperature-and-prior family of src/predict/calibration.ts followed by the adapter's rule F
// for events the prefix rules out (src/train/feasibility.ts). (T, α) are fitted on the
// validation families' NLL, with F applied, by the search of src/predict/calibration.ts.

import { calibrateInPlace, fitOverPriorWeights, nllOf, type Calibration, type CalibrationTargets } from "../predict/calibration.js";
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
  return nllOf(logits, m, classes, (q, offset) => calibrateRow(q, classes, c, feasible, offset));
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
  const at = (temperature: number, priorWeight: number): StudentCalibration => ({ temperature, priorWeight, prior, feasibility, infeasibleCap });
  if (m.rows === 0) return at(1, 0);
  return fitOverPriorWeights(PRIOR_WEIGHT_GRID, at, (c) => calibratedNll(logits, m, classes, c, feasible), 40);
}
