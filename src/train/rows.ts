// Training rows (pure): the feature matrix and targets a student is fitted and scored on,
// one row per sample (ce, trajectory) or per state (kl, validation, holdout), with the
// reasoning-tag targets and the trajectory objective's multi-step targets.

import { totalCount, type Sample, type State } from "../dataset/index.js";
import { UsageError } from "../errors.js";
import {
  applyRecord,
  EVENT_TYPES,
  isEventType,
  newSchedulerTracker,
  type EventType,
  type GoroutineRecord,
} from "../core/index.js";
import { FEATURE_COUNT, FEATURE_SPEC, TAG_CLASSES, type FeatureInputs } from "../predict/index.js";
import { featureColumnOf, featurizeSparse } from "./feature-matrix.js";
import type { TrainingMatrix } from "./fit.js";
import { nextEventRecord, tagTarget } from "./tags.js";
import type { TrainStudentOptions } from "./types.js";
import {
  capProgramCounts,
  capSamplesPerProgram,
  scaleByProgram,
  trainingProgramFactors,
  UNIT_WEIGHTS,
} from "./weighting.js";

const K = EVENT_TYPES.length;
const T = TAG_CLASSES.length;

/** The rows one training run fits, stops early on, calibrates and scores. */
export interface StudentRows {
  /** The objective's rows (per sample for ce and trajectory, per state for kl), class- and program-weighted. */
  readonly train: TrainingMatrix;
  /** The program of each training row. */
  readonly trainPrograms: readonly string[];
  /** The validation states, program counts capped: calibration and the card's validation metrics. */
  readonly validation: TrainingMatrix;
  /** What early stopping scores: rows of the kind the objective trains on. */
  readonly stopping: TrainingMatrix;
}

/** The states and samples of one side of a training run. */
interface RowSource {
  readonly states: readonly State[];
  readonly samples: readonly Sample[];
}

/**
 * Builds a training run's rows; `weights` are the class weights of the training rows. The
 * holdout's rows are not among them: they are only scored, once the student is trained
 * (holdoutRows), so they never share memory with the training rows.
 */
export function studentRows(
  fit: RowSource,
  validationSide: RowSource,
  inputs: FeatureInputs,
  weights: Readonly<Record<EventType, number>>,
  options: Pick<
    TrainStudentOptions,
    "objective" | "tags" | "ceSamplesPerProgram" | "seed" | "trajectorySteps" | "trajectoryDiscount"
  >,
): StudentRows {
  const sampleTags = options.tags ? tagsOfSamples(fit.samples) : null;
  const ceSamples =
    options.objective !== "kl" ? capSamplesPerProgram(fit.samples, options.ceSamplesPerProgram, options.seed) : null;
  const train =
    ceSamples !== null
      ? sampleRows(ceSamples.samples, inputs, weights, sampleTags === null ? null : pick(sampleTags, ceSamples.indices))
      : stateRows(fit.states, inputs, weights, options.tags ? stateTagTargets(fit.samples, sampleTags) : null);
  if (options.objective === "trajectory" && ceSamples !== null)
    setTrajectoryTargets(train, ceSamples.samples, options.trajectorySteps, options.trajectoryDiscount);
  const trainPrograms =
    ceSamples !== null ? ceSamples.samples.map((s) => s.prefix.program) : keptStates(fit.states).map((s) => s.program);
  scaleByProgram(train, trainPrograms, trainingProgramFactors(fit.samples));
  const validation = cappedStateRows(validationSide.states, inputs);
  // Early stopping scores held-out rows of the kind the objective trains on. Per-sample rows
  // (ce, trajectory) are fitted to each run's own prefix, which under a pooled abstraction
  // (depth) nearly determines its next event while the state's representative prefix does
  // not determine its pooled p̂: scored on states, every trained epoch looked worse than the
  // random initialisation, and epoch 0 was kept (docs/experiments/training.md).
  const stopping = ceSamples !== null ? validationSampleRows(validationSide.samples, inputs, options) : validation;
  return { train, trainPrograms, validation, stopping };
}

/** The holdout states' rows (no class weights, counts as they are), scored for the card. */
export function holdoutRows(states: readonly State[], inputs: FeatureInputs): TrainingMatrix {
  return stateRows(states, inputs, null, null);
}

/** CE rows: one per sample, one-hot target, weight = class weight of its label. */
function sampleRows(
  samples: readonly Sample[],
  inputs: FeatureInputs,
  weights: Readonly<Record<EventType, number>>,
  tags: Int32Array | null,
): TrainingMatrix {
  const n = samples.length;
  const { x, feasible } = featurizeSparse(
    samples.map((s) => s.prefix),
    inputs,
  );
  const events = new Float64Array(n * K);
  const w = new Float64Array(n);
  const counts = new Float64Array(n).fill(1);
  const tagTargets = tags === null ? null : new Float64Array(n * T);
  samples.forEach((s, i) => {
    events[i * K + EVENT_TYPES.indexOf(s.next)] = 1;
    w[i] = weights[s.next];
    if (tagTargets !== null && tags !== null) tagTargets[i * T + tags[i]] = 1;
  });
  return { rows: n, inputs: FEATURE_COUNT, x, feasible, events, weights: w, counts, tags: tagTargets };
}

/**
 * KL rows: one per state, features of its representative prefix, target p̂. With class
 * weights w, the target becomes p̂·w normalised and the row weight n·Σ p̂_c w_c, which is
 * exactly the class-weighted CE summed over the state's samples.
 */
function stateRows(
  states: readonly State[],
  inputs: FeatureInputs,
  weights: Readonly<Record<EventType, number>> | null,
  tags: ReadonlyMap<string, Float64Array> | null,
): TrainingMatrix {
  const kept = keptStates(states);
  const n = kept.length;
  const { x, feasible } = featurizeSparse(
    kept.map((s) => s.representative),
    inputs,
  );
  const events = new Float64Array(n * K);
  const w = new Float64Array(n);
  const counts = new Float64Array(n);
  const tagTargets = tags === null ? null : new Float64Array(n * T);
  kept.forEach((s, i) => {
    const total = totalCount(s.counts);
    counts[i] = total;
    let mass = 0;
    EVENT_TYPES.forEach((e, c) => {
      const v = (s.counts[e] / total) * (weights === null ? 1 : weights[e]);
      events[i * K + c] = v;
      mass += v;
    });
    for (let c = 0; c < K; c++) events[i * K + c] /= mass;
    w[i] = total * mass;
    if (tagTargets !== null) {
      const t = tags?.get(s.id);
      if (t !== undefined) tagTargets.set(t, i * T);
      else tagTargets[i * T] = 1;
    }
  });
  return { rows: n, inputs: FEATURE_COUNT, x, feasible, events, weights: w, counts, tags: tagTargets };
}

/** States with at least one sample: the rows stateRows keeps, in the same order. */
export function keptStates(states: readonly State[]): State[] {
  return states.filter((s) => totalCount(s.counts) > 0);
}

/** State rows of `states` (no class weights) with program counts capped like the validation rows. */
export function cappedStateRows(states: readonly State[], inputs: FeatureInputs): TrainingMatrix {
  const rows = stateRows(states, inputs, null, null);
  capProgramCounts(
    rows,
    keptStates(states).map((s) => s.program),
  );
  return rows;
}

/**
 * Validation rows for per-sample objectives: each validation sample with its own prefix and
 * observed next event (unweighted), capped per program like the training samples, and with
 * program counts capped like the validation states.
 */
function validationSampleRows(
  samples: readonly Sample[],
  inputs: FeatureInputs,
  options: Pick<TrainStudentOptions, "ceSamplesPerProgram" | "seed">,
): TrainingMatrix {
  const capped = capSamplesPerProgram(samples, options.ceSamplesPerProgram, options.seed).samples;
  const rows = sampleRows(capped, inputs, UNIT_WEIGHTS, null);
  capProgramCounts(
    rows,
    capped.map((s) => s.prefix.program),
  );
  return rows;
}

/**
 * Tag class index per sample (same order as `samples`), exact from the trace: samples of
 * one run are visited in prefix order with one scheduler tracker.
 */
export function tagsOfSamples(samples: readonly Sample[]): Int32Array {
  const tags = new Int32Array(samples.length);
  const byRun = new Map<readonly GoroutineRecord[], number[]>();
  samples.forEach((s, i) => {
    const list = byRun.get(s.prefix.records);
    if (list === undefined) byRun.set(s.prefix.records, [i]);
    else list.push(i);
  });
  for (const [records, indices] of byRun) {
    indices.sort((a, b) => samples[a].prefix.end - samples[b].prefix.end || a - b);
    const tracker = newSchedulerTracker();
    let applied = 0;
    for (const i of indices) {
      const s = samples[i];
      for (; applied < s.prefix.end; applied++) applyRecord(tracker, records[applied]);
      tags[i] = TAG_CLASSES.indexOf(tagTarget(s.next, nextEventRecord(s.prefix, s.next), tracker));
    }
  }
  return tags;
}

/** The tag distribution of each state (by state id) from its samples' tags; empty without tags. */
function stateTagTargets(samples: readonly Sample[], tags: Int32Array | null): Map<string, Float64Array> {
  const byState = new Map<string, Float64Array>();
  if (tags === null) return byState;
  samples.forEach((s, i) => {
    let v = byState.get(s.stateId);
    if (v === undefined) byState.set(s.stateId, (v = new Float64Array(T)));
    v[tags[i]]++;
  });
  for (const v of byState.values()) {
    const n = v.reduce((a, b) => a + b, 0);
    for (let c = 0; c < T; c++) v[c] /= n;
  }
  return byState;
}

/** The entries of `values` at `indices`, in that order. */
function pick(values: Int32Array, indices: readonly number[]): Int32Array {
  return Int32Array.from(indices, (i) => values[i]);
}

/**
 * Trajectory targets (objective "trajectory"): row i's one-hot target becomes the γ-weighted
 * mixture of the run's next `steps` event types from sample i's position (its own next event
 * first, weight γ^j for step j, normalised over the steps the run still has). The row weight
 * stays the class weight of the next event. Σ_j γ^j·CE(e_{t+j}, q) = (Σ_j γ^j)·CE(mixture, q),
 * so fitting the mixture is the discounted multi-step loss up to a per-row constant.
 */
export function setTrajectoryTargets(
  m: TrainingMatrix,
  samples: readonly Sample[],
  steps: number,
  discount: number,
): void {
  if (!Number.isInteger(steps) || steps < 1)
    throw new UsageError(
      `trajectory steps must be a positive integer, got ${steps}`,
      "Pass e.g. --trajectory-steps 4.",
    );
  if (!(discount > 0 && discount <= 1))
    throw new UsageError(
      `trajectory discount must be in (0, 1], got ${discount}`,
      "Pass e.g. --trajectory-discount 0.5.",
    );
  const sequences = new Map<readonly GoroutineRecord[], number[]>();
  samples.forEach((s, i) => {
    const records = s.prefix.records;
    let events = sequences.get(records);
    if (events === undefined) {
      events = [];
      for (let r = 0; r < records.length; r++) if (isEventType(records[r].kind)) events.push(r);
      sequences.set(records, events);
    }
    let lo = 0;
    let hi = events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (events[mid] < s.prefix.end) lo = mid + 1;
      else hi = mid;
    }
    const row = m.events.subarray(i * K, (i + 1) * K);
    row.fill(0);
    let total = 0;
    for (let j = 0, w = 1; j < steps && lo + j < events.length; j++, w *= discount) {
      row[EVENT_TYPES.indexOf(records[events[lo + j]].kind as EventType)] += w;
      total += w;
    }
    if (total === 0) row[EVENT_TYPES.indexOf(s.next)] = 1;
    else for (let c = 0; c < K; c++) row[c] /= total;
  });
}

/** The raw values of one feature column of `m` (the calibration's in-context evidence). */
export function featureColumn(m: TrainingMatrix, feature: string): Float64Array {
  const column = FEATURE_SPEC.names.indexOf(feature);
  if (column < 0) throw new Error(`featureColumn: no feature ${feature}`);
  return featureColumnOf(m.x, column);
}
