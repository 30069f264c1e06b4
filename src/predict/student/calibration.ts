// The student's calibration as applied to a row (pure):
//   q = F((1 − β)·((1 − α)·softmax(z / T) + α·prior) + β·c),
// the temperature-and-prior family of src/predict/calibration.ts, then a share β of the in-context
// expert's distribution c (the row's own ctx.mix.p.* features: its run's in-context n-gram), then
// the adapter's rule F for events the prefix rules out (feasibility.ts); the temperature may
// depend on the row's in-context predictability. src/train/calibration.ts fits (T, α, β) and the variants.

import { calibrateInPlace, type Calibration } from "../calibration.js";
import { EVENT_TYPES } from "../../core/index.js";
import { FEATURE_COUNT, FEATURE_SPEC } from "./features.js";
import { capInfeasible, topFeasible } from "./feasibility.js";

/** The first of the in-context expert's six probability columns (ctx.mix.p.<event>, in EVENT_TYPES order). */
export const EXPERT_COLUMN = FEATURE_SPEC.names.indexOf(`ctx.mix.p.${EVENT_TYPES[0]}`);

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
  /**
   * β, the share of the in-context expert's distribution (the row's ctx.mix.p.* features) mixed
   * into the calibrated distribution; absent: 0 (adapters trained before it).
   */
  readonly expertWeight?: number;
  /**
   * T_m, a temperature on the distribution after the expert is mixed in (q ∝ q^(1/T_m)), fitted on
   * the validation families with the shares the evidence earned; absent: 1.
   */
  readonly mixtureTemperature?: number;
  /**
   * T_c, a temperature on the in-context expert's distribution before it is mixed in (c ∝ c^(1/T_c)),
   * fitted on the validation families with the shares the evidence earned; absent: 1.
   */
  readonly expertTemperature?: number;
  /**
   * The confidence levels' weights a row's run earned (evidence.ts, ConfidenceEvidence): after the
   * expert is mixed in, q becomes Σ_ℓ v_ℓ·q^(1/ℓ) (each renormalised); absent: q as it is.
   */
  readonly confidence?: { readonly levels: readonly number[]; readonly weights: ArrayLike<number> };
}

/**
 * Writes the in-context expert's distribution of the raw feature row at `features[at ..]` (the
 * row's first column) into out[0 .. classes): its ctx.mix.p.* columns, normalised. Returns false
 * (and leaves `out` alone) when the columns are all zero.
 */
export function expertInto(features: ArrayLike<number>, at: number, classes: number, out: Float64Array): boolean {
  const from = at + EXPERT_COLUMN;
  let sum = 0;
  for (let k = 0; k < classes; k++) sum += features[from + k]!;
  // ctx.mix sums to 1 (it falls back to the training n-gram); the guard keeps q a distribution regardless.
  if (!(sum > 0)) return false;
  for (let k = 0; k < classes; k++) out[k] = features[from + k]! / sum;
  return true;
}

/** Replaces the distribution q[0 .. classes) with Σ_ℓ v_ℓ·q^(1/ℓ) (each renormalised): the order of the events is kept. */
function mixLevelsInPlace(
  q: Float64Array,
  classes: number,
  levels: readonly number[],
  weights: ArrayLike<number>,
): void {
  const m = mixtureScratch.subarray(0, classes);
  const level = levelScratch.subarray(0, classes);
  m.set(q.subarray(0, classes));
  q.fill(0, 0, classes);
  for (let l = 0; l < levels.length; l++) {
    if (!(weights[l]! > 0)) continue;
    level.set(m);
    if (levels[l] !== 1) temperInPlace(level, classes, levels[l]!);
    for (let k = 0; k < classes; k++) q[k]! += weights[l]! * level[k]!;
  }
}

/** q[0 .. classes) ∝ q^(1/t), renormalised; zeros stay zero. */
export function temperInPlace(q: Float64Array, classes: number, t: number): void {
  let total = 0;
  for (let k = 0; k < classes; k++) {
    q[k] = q[k]! > 0 ? Math.exp(Math.log(q[k]!) / t) : 0;
    total += q[k]!;
  }
  for (let k = 0; k < classes; k++) q[k]! /= total;
}

/** Scratch for one row (calibrateRow is synchronous): the expert's distribution, the mixture and one level of it. */
const expert = new Float64Array(EVENT_TYPES.length);
const mixtureScratch = new Float64Array(EVENT_TYPES.length);
const levelScratch = new Float64Array(EVENT_TYPES.length);

/**
 * Replaces the logits q[0 .. classes) with the calibrated distribution; with an expert weight
 * and the rows' raw features (`features`, rows × FEATURE_COUNT; this row is maskAt / classes),
 * mixes in the row's in-context expert; with a cap and the row's feasible flags
 * (feasible[maskAt ..]), infeasible events share at most the cap.
 */
export function calibrateRow(
  q: Float64Array,
  classes: number,
  c: Calibration | StudentCalibration,
  feasible: Uint8Array | null,
  maskAt: number,
  features: ArrayLike<number> | null = null,
): void {
  calibrateInPlace(q, classes, c);
  const beta = "expertWeight" in c ? (c.expertWeight ?? 0) : 0;
  if (beta > 0 && features !== null) {
    if (expertInto(features, (maskAt / classes) * FEATURE_COUNT, classes, expert)) {
      const t = "expertTemperature" in c ? (c.expertTemperature ?? 1) : 1;
      if (t !== 1) temperInPlace(expert, classes, t);
      for (let k = 0; k < classes; k++) q[k] = (1 - beta) * q[k]! + beta * expert[k]!;
    }
  }
  if ("confidence" in c && c.confidence !== undefined && c.confidence.levels.length > 1)
    mixLevelsInPlace(q, classes, c.confidence.levels, c.confidence.weights);
  const mixture = "mixtureTemperature" in c ? (c.mixtureTemperature ?? 1) : 1;
  if (mixture !== 1) temperInPlace(q, classes, mixture);
  if (feasible === null || !("feasibility" in c)) return;
  if (c.feasibility === "cap") capInfeasible(q, 0, feasible, maskAt, c.infeasibleCap);
  else if (c.feasibility === "top") topFeasible(q, 0, feasible, maskAt);
}
