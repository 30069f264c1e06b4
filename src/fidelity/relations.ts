// The four teacher/student output relations (docs/fidelity.md) on one set of states: pure,
// predictions in, violation rates with program-bootstrap intervals out.

import type { Sample, SampleRow, State } from "../dataset/index.js";
import {
  type BootstrapInterval,
  clusterBootstrapMeanDifference,
  empiricalDistribution,
  expectedCalibrationError,
  klDivergence,
  modeAccuracy,
  TIE_TOLERANCE,
  tieCredit,
  topLabel,
  topLabels,
} from "../metrics/index.js";
import { probabilityVectorProblem, type PredictorOutput } from "../predict/index.js";
import { EVENT_TYPES } from "../core/index.js";
import { calibrationTallies, mr4FromTallies } from "./calibration-alignment.js";
import { FidelityInputError } from "./errors.js";
import {
  DEFAULT_THRESHOLDS,
  type FidelityOptions,
  type FidelityResult,
  type FidelityThresholds,
  type PredictorSummary,
  type RelationResult,
} from "./types.js";

/**
 * MR1 on one state: undefined when the teacher's top label is tied (no single answer to
 * agree with); otherwise true (violated) unless the student's unique top label is the
 * teacher's. A student tied between the teacher's label and another does not agree.
 */
export function mr1Violated(teacher: readonly number[], student: readonly number[]): boolean | undefined {
  const t = topLabels(teacher);
  if (t.length !== 1) return undefined;
  const s = topLabels(student);
  return !(s.length === 1 && s[0] === t[0]);
}

/** MR2 on one state: KL(teacher‖student) > tau. */
export function mr2Violated(teacher: readonly number[], student: readonly number[], tau: number): boolean {
  return klDivergence(teacher, student) > tau;
}

/**
 * MR3 on one state: undefined when the teacher's top probability is below `confidence`;
 * otherwise violated unless the student picks the same (unique) top label with
 * probability ≥ confidence − delta. Both comparisons allow TIE_TOLERANCE, so 0.8 − 0.1 is 0.7.
 */
export function mr3Violated(
  teacher: readonly number[],
  student: readonly number[],
  confidence: number,
  delta: number,
): boolean | undefined {
  const t = topLabel(teacher);
  if (teacher[t]! < confidence - TIE_TOLERANCE) return undefined;
  const s = topLabels(student);
  return !(s.length === 1 && s[0] === t && student[t]! >= confidence - delta - TIE_TOLERANCE);
}

function interval(b: BootstrapInterval): RelationResult["ci"] {
  return { lower: b.lower, upper: b.upper, confidence: b.confidence, resamples: b.resamples, programs: b.clusters };
}

/** Rate and program-bootstrap interval of a per-state relation; undefined verdicts are excluded. */
function stateRelation(
  verdicts: readonly (boolean | undefined)[],
  programs: readonly string[],
  options: FidelityOptions,
): RelationResult {
  const groups: string[] = [];
  const values: number[] = [];
  verdicts.forEach((v, i) => {
    if (v === undefined) return;
    groups.push(programs[i]!);
    values.push(v ? 1 : 0);
  });
  const b = clusterBootstrapMeanDifference(
    groups,
    values,
    values.map(() => 0),
    { resamples: options.resamples, seed: options.seed, confidence: options.ciLevel },
  );
  const violations = values.reduce((s, x) => s + x, 0);
  return {
    violationRate: values.length === 0 ? NaN : violations / values.length,
    ci: interval(b),
    units: values.length,
    violations,
    excluded: verdicts.length - values.length,
  };
}

function checkAligned(states: readonly State[], output: PredictorOutput): void {
  if (output.predictions.length !== states.length) {
    throw new FidelityInputError(
      `predictor ${output.name} gave ${output.predictions.length} predictions for ${states.length} states`,
      "Pass predictions aligned with the states, one per state in the same order.",
    );
  }
  output.predictions.forEach((p, i) => {
    const q = p.probabilities;
    if (probabilityVectorProblem(q) !== null) {
      throw new FidelityInputError(
        `predictor ${output.name} gave an invalid distribution for state ${states[i]!.id}: [${q.join(", ")}]`,
        "Each prediction must be six finite non-negative probabilities in EVENT_TYPES order summing to 1.",
      );
    }
  });
}

function summary(
  states: readonly State[],
  rows: readonly { state: number; observed: number; program: string }[],
  output: PredictorOutput,
  thresholds: FidelityThresholds,
  options: FidelityOptions,
): PredictorSummary {
  const q = output.predictions.map((p) => p.probabilities);
  const labels = q.map((v) => topLabel(v));
  const correct = rows.map((r) => tieCredit(q[r.state]!, r.observed));
  const b = clusterBootstrapMeanDifference(
    rows.map((r) => r.program),
    correct,
    correct.map(() => 0),
    { resamples: options.resamples, seed: options.seed, confidence: options.ciLevel },
  );
  const observedStates = states.flatMap((s, i) => (EVENT_TYPES.some((e) => s.counts[e] > 0) ? [i] : []));
  const confidences = q.map((v, i) => v[labels[i]!]!);
  return {
    name: output.name,
    configHash: output.configHash,
    accuracy: b.estimate,
    accuracyCi: interval(b),
    modeAccuracy: modeAccuracy(
      observedStates.map((i) => q[i]!),
      observedStates.map((i) => EVENT_TYPES.map((e) => states[i]!.counts[e])),
    ),
    ece: expectedCalibrationError(
      rows.map((r) => q[r.state]!),
      rows.map((r) => r.observed),
      thresholds.bins,
    ),
    meanConfidence: confidences.length === 0 ? NaN : confidences.reduce((s, x) => s + x, 0) / confidences.length,
    confidentStates: confidences.filter((c) => c >= thresholds.confidence).length,
  };
}

/**
 * Checks the four relations between `teacher` and `student` on `states` (predictions
 * aligned with them) and `samples` (the observed next events of those states).
 *
 * Units and aggregation:
 * - MR1, MR2, MR3 are per state, each state weighted once. MR1 skips states whose
 *   teacher top label is tied; MR3 skips states where the teacher is not confident.
 * - MR4 is per sample: both predictors' top-label confidences are binned (equal width,
 *   `bins`), and a bin populated by both violates when the accuracies of the samples
 *   each predictor put there differ by more than `mr4Threshold`. The violation rate is
 *   sample-weighted: the share of the samples in compared bins (teacher's and student's
 *   placements both counted) that sit in a violating bin. The unweighted share of
 *   compared bins and |ECE_T − ECE_S| are reported beside it.
 * - Intervals resample programs (clusters), as in eval.
 */
export function checkFidelity(
  states: readonly State[],
  samples: readonly (Sample | SampleRow)[],
  teacher: PredictorOutput,
  student: PredictorOutput,
  options: FidelityOptions = {},
): FidelityResult {
  const thresholds: FidelityThresholds = { ...DEFAULT_THRESHOLDS, ...options.thresholds };
  checkAligned(states, teacher);
  checkAligned(states, student);
  const index = new Map(states.map((s, i) => [s.id, i] as const));
  const rows = samples.map((sample) => {
    const state = index.get(sample.stateId);
    if (state === undefined) {
      throw new FidelityInputError(
        `sample of state ${sample.stateId} has no matching state`,
        "Pass the states and samples of the same dataset build (same abstraction and holdout).",
      );
    }
    return {
      state,
      observed: EVENT_TYPES.indexOf(sample.next),
      program: "program" in sample ? sample.program : sample.prefix.program,
    };
  });
  const t = teacher.predictions.map((p) => p.probabilities);
  const s = student.predictions.map((p) => p.probabilities);
  const programs = states.map((st) => st.program);
  const MR1 = stateRelation(
    t.map((tq, i) => mr1Violated(tq, s[i]!)),
    programs,
    options,
  );
  const MR2 = stateRelation(
    t.map((tq, i) => mr2Violated(tq, s[i]!, thresholds.tau)),
    programs,
    options,
  );
  const MR3 = stateRelation(
    t.map((tq, i) => mr3Violated(tq, s[i]!, thresholds.confidence, thresholds.delta)),
    programs,
    options,
  );
  const tallies = calibrationTallies(
    rows.map((r) => ({ program: r.program, observed: r.observed, teacher: t[r.state]!, student: s[r.state]! })),
    thresholds.bins,
  );
  const MR4 = mr4FromTallies(tallies, thresholds, options);
  return {
    thresholds,
    states: states.length,
    samples: rows.length,
    programs: new Set(programs).size,
    relations: { MR1, MR2, MR3, MR4 },
    teacher: summary(states, rows, teacher, thresholds, options),
    student: summary(states, rows, student, thresholds, options),
  };
}

/** The empirical distribution p̂ of a state, for building reference predictors in tests and tools. */
export function stateDistribution(state: State): number[] {
  return empiricalDistribution(EVENT_TYPES.map((e) => state.counts[e]));
}
