// The student's calibration as applied to a row (pure): q = F((1 − α)·softmax(z / T) + α·prior),
// the temperature-and-prior family of src/predict/calibration.ts followed by the adapter's rule
// F for events the prefix rules out (feasibility.ts), with a temperature that may depend on the
// row's in-context predictability. src/train/calibration.ts fits (T, α) and the variants.

import { calibrateInPlace, type Calibration } from "../calibration.js";
import { capInfeasible, topFeasible } from "./feasibility.js";

/**
 * A temperature that depends on in-context evidence h (a raw feature value of the row):
 * T(h) = T·exp(slope·(h − centre)). slope 0 is the plain temperature.
 */
export interface ContextTemperature {
  /** Feature name (FEATURE_SPEC), e.g. CONTEXT_CALIBRATION_FEATURE. */
  readonly feature: string;
  /** The count-weighted mean of h over the rows it was fitted on. */
  readonly centre: number;
  readonly slope: number;
}

/** The calibration of one row whose in-context evidence is h. */
export function atContext<C extends Calibration>(c: C, context: ContextTemperature | undefined, h: number): C {
  return context === undefined || context.slope === 0
    ? c
    : { ...c, temperature: c.temperature * Math.exp(context.slope * (h - context.centre)) };
}

/**
 * What a student does with events its prefix rules out (feasibility.ts): nothing,
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
export function calibrateRow(
  q: Float64Array,
  classes: number,
  c: Calibration | StudentCalibration,
  feasible: Uint8Array | null,
  maskAt: number,
): void {
  calibrateInPlace(q, classes, c);
  if (feasible === null || !("feasibility" in c)) return;
  if (c.feasibility === "cap") capInfeasible(q, 0, feasible, maskAt, c.infeasibleCap);
  else if (c.feasibility === "top") topFeasible(q, 0, feasible, maskAt);
}
