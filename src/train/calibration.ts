// Fitting the student's calibration (pure): (T, α) of src/predict/student/calibration.ts's
// q = F((1 − α)·softmax(z / T) + α·prior) are fitted on the validation families' NLL, with the
// adapter's feasibility rule F applied, by the search of src/predict/calibration.ts.
// Two variants measured by leave-family-out CV (docs/experiments/training.md): a temperature per ensemble
// member before averaging, and a temperature that depends on the run's in-context
// predictability (T·exp(β·(h − h̄)), h a feature such as ctx.selfHits.recent).

import {
  atContext,
  calibrateRow,
  fitOverPriorWeights,
  fitTemperature,
  goldenTemperature,
  nllOf,
  type Calibration,
  type CalibrationTargets,
  type ContextTemperature,
  type StudentCalibration,
} from "../predict/index.js";

/**
 * How a student is calibrated: the ensemble's mean distribution as one model ("pooled", the
 * default), each member at its own temperature before averaging and then the mean as one
 * model ("per-member"), or the pooled fit with a temperature scaled by the run's in-context
 * predictability ("in-context").
 */
export const CALIBRATION_MODES = ["pooled", "per-member", "in-context"] as const;
export type CalibrationMode = (typeof CALIBRATION_MODES)[number];

/** The feature an "in-context" calibration reads: the share of the last 32 events the run's own counts predicted. */
export const CONTEXT_CALIBRATION_FEATURE = "ctx.selfHits.recent";

/** Slopes of log T per unit of h tried by fitContextTemperature (0 included: never worse than the pooled fit). */
export const CONTEXT_SLOPE_GRID: readonly number[] = [-3, -2, -1.5, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 2];

/** Prior weights tried: fine near 0, where most fits land, coarser further out. */
export const PRIOR_WEIGHT_GRID: readonly number[] = [
  0, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
];

/** Weights β of the in-context expert tried by fitStudentCalibration (0 included: never worse than without it). */
export const EXPERT_WEIGHT_GRID: readonly number[] = [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5];

/** Count-weighted NLL per sample of calibrated logits (rows × classes); `features`: the rows' raw features, for β. */
export function calibratedNll(
  logits: Float64Array,
  m: CalibrationTargets,
  classes: number,
  c: Calibration | StudentCalibration,
  feasible: Uint8Array | null,
  features: ArrayLike<number> | null = null,
): number {
  return nllOf(logits, m, classes, (q, offset) => calibrateRow(q, classes, c, feasible, offset, features));
}

/**
 * The (T, α) with the lowest validation NLL over PRIOR_WEIGHT_GRID (α = 0 is temperature
 * scaling alone, so the fit is never worse than it). Nothing to fit on gives T = 1, α = 0.
 * With `features` (the rows' raw features) the in-context expert's weight β is fitted too, on the
 * same NLL: (T, α) at β = 0; then for each β of EXPERT_WEIGHT_GRID the temperature by
 * golden-section search with α kept; the best β keeps its refined temperature. β = 0 is the fit
 * without the expert, so validation NLL never rises.
 */
export function fitStudentCalibration(
  logits: Float64Array,
  m: CalibrationTargets,
  classes: number,
  prior: ArrayLike<number>,
  feasible: Uint8Array | null,
  rule: Pick<StudentCalibration, "feasibility" | "infeasibleCap">,
  features: ArrayLike<number> | null = null,
): StudentCalibration {
  const { feasibility, infeasibleCap } = rule;
  const at =
    (expertWeight: number) =>
    (temperature: number, priorWeight: number): StudentCalibration => ({
      temperature,
      priorWeight,
      prior,
      feasibility,
      infeasibleCap,
      ...(expertWeight > 0 ? { expertWeight } : {}),
    });
  if (m.rows === 0) return at(0)(1, 0);
  const nll = (c: StudentCalibration): number => calibratedNll(logits, m, classes, c, feasible, features);
  const plain = fitOverPriorWeights(PRIOR_WEIGHT_GRID, at(0), nll, 40);
  if (features === null) return plain;
  // The search over β uses 20 golden-section steps (the bracket shrinks 0.618^20 ≈ 7e-5 on log T);
  // the chosen β gets the full 40. α stays the β = 0 fit's: refitting it over its grid cost three
  // times the β search (bench/train.mjs).
  let best = { beta: 0, loss: nll(plain) };
  for (const beta of EXPERT_WEIGHT_GRID) {
    if (beta === 0) continue;
    const withBeta = at(beta);
    const loss = nll(
      withBeta(
        goldenTemperature((t) => nll(withBeta(t, plain.priorWeight)), 20),
        plain.priorWeight,
      ),
    );
    if (loss < best.loss - 1e-9) best = { beta, loss };
  }
  if (best.beta === 0) return plain;
  const withBest = at(best.beta);
  return withBest(
    goldenTemperature((t) => nll(withBest(t, plain.priorWeight)), 40),
    plain.priorWeight,
  );
}

/**
 * T ∈ [0.05, 20] minimising `nllAt(T)` (the validation NLL with the evidence-earned shares), 1
 * unless another temperature lowers it: T_m on the mixed distribution, T_c on the expert.
 */
export function temperatureOrOne(nllAt: (t: number) => number): number {
  const t = goldenTemperature(nllAt, 40);
  return nllAt(t) < nllAt(1) - 1e-9 ? t : 1;
}

/**
 * The in-context temperature: α and the feasibility rule kept from `base` (the pooled fit), the
 * slope β from CONTEXT_SLOPE_GRID and, for each, the base temperature by golden-section search
 * on the same validation NLL; the (β, T) with the lowest NLL. `h` holds each row's evidence.
 * β = 0 reproduces `base`, so the fit is never worse than it on the rows it is fitted on.
 */
export function fitContextTemperature(
  logits: Float64Array,
  m: CalibrationTargets,
  classes: number,
  base: StudentCalibration,
  feasible: Uint8Array | null,
  h: Float64Array,
  feature: string,
  features: ArrayLike<number> | null = null,
): { calibration: StudentCalibration; context: ContextTemperature } {
  let weight = 0;
  let sum = 0;
  for (let r = 0; r < m.rows; r++) {
    weight += m.counts[r];
    sum += m.counts[r] * h[r];
  }
  const centre = weight > 0 ? sum / weight : 0;
  const nll = (c: StudentCalibration, context: ContextTemperature): number =>
    nllOf(logits, m, classes, (q, offset) =>
      calibrateRow(q, classes, atContext(c, context, h[offset / classes]), feasible, offset, features),
    );
  let best = { calibration: base, context: { feature, centre, slope: 0 } };
  let bestLoss = nll(base, best.context);
  for (const slope of CONTEXT_SLOPE_GRID) {
    if (slope === 0 || m.rows === 0) continue;
    const context = { feature, centre, slope };
    const temperature = goldenTemperature((t) => nll({ ...base, temperature: t }, context), 40);
    const loss = nll({ ...base, temperature }, context);
    if (loss < bestLoss - 1e-9) {
      best = { calibration: { ...base, temperature }, context };
      bestLoss = loss;
    }
  }
  return best;
}

/** Each ensemble member's own temperature on the validation rows (plain temperature scaling of its logits). */
export function memberTemperatures(
  memberLogits: readonly Float64Array[],
  m: CalibrationTargets,
  classes: number,
): number[] {
  return memberLogits.map((z) => fitTemperature(z, m, classes));
}
