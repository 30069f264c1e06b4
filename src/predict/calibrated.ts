// cal:SPEC — any predictor, calibrated on validation states the way students are:
// q' = (1 − α)·softmax(ln q / T) + α·m, with m the training class marginal and (T, α) fitted
// on the validation states' p̂ (whole families never trained on). Baselines then meet the
// students on equal terms instead of being scored uncalibrated beside calibrated students.

import { createHash } from "node:crypto";
import { totalCount, type State } from "../dataset/index.js";
import { EVENT_TYPES } from "../core/index.js";
import {
  calibrateInPlace,
  fitCalibration,
  logitsOfProbabilities,
  type Calibration,
  type CalibrationTargets,
} from "./calibration.js";
import type { Prediction, Predictor } from "./types.js";

const K = EVENT_TYPES.length;

/** How predictions of states are obtained: through the prediction cache when there is a database. */
export type StatePredictions = (predictor: Predictor, states: readonly State[]) => Promise<Prediction[]>;

/** Targets of the states that have samples: p̂ per row, weighted by the state's sample count. */
export function stateTargets(states: readonly State[]): CalibrationTargets & { readonly kept: readonly State[] } {
  const kept = states.filter((s) => totalCount(s.counts) > 0);
  const events = new Float64Array(kept.length * K);
  const counts = new Float64Array(kept.length);
  kept.forEach((s, r) => {
    const n = totalCount(s.counts);
    counts[r] = n;
    EVENT_TYPES.forEach((e, c) => (events[r * K + c] = s.counts[e] / n));
  });
  return { rows: kept.length, events, counts, kept };
}

/** The calibration of `inner` on `validation`, toward `prior`; identity when there is nothing to fit on. */
export async function fitPredictorCalibration(
  inner: Predictor,
  validation: readonly State[],
  prior: readonly number[],
  predict: StatePredictions,
): Promise<Calibration> {
  const targets = stateTargets(validation);
  const predictions = targets.rows === 0 ? [] : await predict(inner, targets.kept);
  return fitCalibration(
    logitsOfProbabilities(
      predictions.map((p) => p.probabilities),
      K,
    ),
    targets,
    K,
    prior,
  );
}

/** Applies `calibration` to one probability vector. */
export function calibrateProbabilities(q: readonly number[], calibration: Calibration): number[] {
  const v = Float64Array.from(q, (p) => Math.log(Math.max(p, 1e-12)));
  calibrateInPlace(v, K, calibration);
  return Array.from(v);
}

/**
 * `inner` calibrated on `validation` toward `prior`. Its id is "cal:" + the inner id, its
 * configHash covers the inner configHash and the fitted (T, α, prior).
 */
export async function calibratedPredictor(
  inner: Predictor,
  validation: readonly State[],
  prior: readonly number[],
  predict: StatePredictions,
): Promise<Predictor & { readonly calibration: Calibration }> {
  const calibration = await fitPredictorCalibration(inner, validation, prior, predict);
  const configHash = createHash("sha256")
    .update(
      JSON.stringify({
        kind: "cal",
        inner: inner.id,
        innerConfig: inner.configHash,
        temperature: calibration.temperature,
        priorWeight: calibration.priorWeight,
        prior: Array.from(calibration.prior),
      }),
    )
    .digest("hex")
    .slice(0, 16);
  return {
    id: `cal:${inner.id}`,
    configHash,
    calibration,
    predict: async (states) =>
      (await predict(inner, states)).map((p) => {
        const probabilities = calibrateProbabilities(p.probabilities, calibration);
        return p.tags === undefined ? { probabilities } : { probabilities, tags: p.tags };
      }),
  };
}
