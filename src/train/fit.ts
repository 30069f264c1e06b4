// Fitting a student: mini-batch Adam with L2 on a weighted soft-target cross-entropy,
// early stopping on a validation split, then a temperature fitted on that split.
// The CE objective is the special case of one-hot targets; the KL objective uses p̂ as
// the target (KL(p̂‖q) and CE(p̂, q) differ by H(p̂), a constant, so gradients are equal).

import {
  calibrateInPlace,
  fitCalibration,
  fitTemperature,
  modelLayout,
  newWorkspace,
  nllOfLogits,
  softmaxInPlace,
  temperatureOnly,
  type Calibration,
  type ModelShape,
} from "../predict/index.js";
import { adamStep, initialParameters, newAdam, weightMask } from "./model.js";
import { seededRandom, shuffleInPlace } from "../random.js";
import {
  centreWidth,
  finishBatchGradient,
  firstLayerCentre,
  sparseBackward,
  sparseForward,
  sparseRows,
  type SparseRows,
} from "./sparse.js";
import type { FeatureMatrix } from "./feature-matrix.js";
import { identityStandardiser } from "./standardiser.js";

export { calibrateInPlace, fitCalibration, fitTemperature, nllOfLogits, temperatureOnly, type Calibration };

/** Rows of features with soft targets. All arrays are row-major. */
export interface TrainingMatrix {
  readonly rows: number;
  readonly inputs: number;
  /** rows × inputs raw feature values, in sparse form. */
  readonly x: FeatureMatrix;
  /** rows × 6 feasible-event flags of each row's prefix (src/predict/student/feasibility.ts). */
  readonly feasible: Uint8Array;
  /** rows × 6 target distributions over EVENT_TYPES (each row sums to 1). */
  readonly events: Float64Array;
  /** Training weight per row (sample count, times the class weights with --balance). */
  readonly weights: Float64Array;
  /** Samples each row stands for (1 for CE rows, the state's count for KL rows); scores use these. */
  readonly counts: Float64Array;
  /** rows × tag classes soft tag targets, or null. */
  readonly tags: Float64Array | null;
}

export interface FitOptions {
  readonly seed: number;
  readonly epochs: number;
  readonly batchSize: number;
  readonly learningRate: number;
  readonly l2: number;
  /** Epochs without validation improvement before stopping. */
  readonly patience: number;
  /** Weight of the tag head's loss beside the event head's. */
  readonly tagWeight: number;
  /** Called after each epoch with its validation NLL (progress on a terminal). */
  readonly onEpoch?: (epoch: number, validationLoss: number) => void;
}

export const DEFAULT_FIT_OPTIONS: FitOptions = {
  seed: 1,
  epochs: 60,
  batchSize: 64,
  learningRate: 0.003,
  l2: 1e-4,
  patience: 6,
  tagWeight: 0.3,
};

export interface FitResult {
  readonly params: Float64Array;
  /** Epochs run, and the one whose parameters were kept. */
  readonly epochsRun: number;
  readonly bestEpoch: number;
  /** Validation NLL per sample after each epoch. */
  readonly validationLoss: readonly number[];
}

/**
 * Trains `shape` on `train`, keeping the parameters with the lowest validation NLL. Rows are
 * raw features standardised by `standardiser` on the fly (sparse rows, src/train/sparse.ts).
 */
export function fitModel(
  shape: ModelShape,
  train: TrainingMatrix,
  validation: TrainingMatrix,
  options: FitOptions,
  standardiser = identityStandardiser(train.inputs),
): FitResult {
  const random = seededRandom(options.seed);
  let params = initialParameters(shape, random);
  const size = modelLayout(shape).size;
  const mask = weightMask(shape);
  const adam = newAdam(size);
  const grad = new Float64Array(size);
  const ws = newWorkspace(shape);
  const dEvent = new Float64Array(shape.events);
  const dTag = new Float64Array(Math.max(1, shape.tags));
  const rows = sparseRows(train.x, standardiser);
  const validationRows = sparseRows(validation.x, standardiser);
  const centre = new Float64Array(centreWidth(shape));
  const unitGrad = new Float64Array(centreWidth(shape));
  const order = Array.from({ length: train.rows }, (_, i) => i);
  const meanWeight = sum(train.weights) / Math.max(1, train.rows);

  let best = params.slice();
  let bestLoss = nllOfLogits(sparseLogits(shape, params, validationRows), validation, shape.events, 1);
  let bestEpoch = 0;
  const history: number[] = [];
  let epoch: number;
  for (epoch = 1; epoch <= options.epochs; epoch++) {
    shuffleInPlace(order, random);
    for (let start = 0; start < train.rows; start += options.batchSize) {
      const stop = Math.min(train.rows, start + options.batchSize);
      grad.fill(0);
      firstLayerCentre(shape, params, rows.centre, centre);
      // Normalise by the batch size times the mean row weight, so the step size does not
      // depend on how many samples a KL row stands for.
      const scale = 1 / ((stop - start) * meanWeight);
      for (let b = start; b < stop; b++) {
        const r = order[b];
        const w = train.weights[r] * scale;
        if (w === 0) continue;
        sparseForward(shape, params, rows, r, centre, ws);
        softmaxInPlace(ws.eventLogits, shape.events);
        for (let c = 0; c < shape.events; c++) dEvent[c] = w * (ws.eventLogits[c] - train.events[r * shape.events + c]);
        let tagGrad: Float64Array | null = null;
        if (shape.tags > 0 && train.tags !== null) {
          softmaxInPlace(ws.tagLogits, shape.tags);
          const tw = w * options.tagWeight;
          for (let c = 0; c < shape.tags; c++) dTag[c] = tw * (ws.tagLogits[c] - train.tags[r * shape.tags + c]);
          tagGrad = dTag;
        }
        sparseBackward(shape, params, rows, r, ws, dEvent, tagGrad, grad, unitGrad);
      }
      finishBatchGradient(shape, rows, grad, unitGrad);
      adamStep(params, grad, adam, options.learningRate, options.l2, mask);
    }
    const loss = nllOfLogits(sparseLogits(shape, params, validationRows), validation, shape.events, 1);
    history.push(loss);
    options.onEpoch?.(epoch, loss);
    if (loss < bestLoss - 1e-6) {
      bestLoss = loss;
      best = params.slice();
      bestEpoch = epoch;
    } else if (epoch - bestEpoch >= options.patience) {
      break;
    }
  }
  params = best;
  return { params, epochsRun: Math.min(epoch, options.epochs), bestEpoch, validationLoss: history };
}

function sparseLogits(shape: ModelShape, params: Float64Array, rows: SparseRows): Float64Array {
  const ws = newWorkspace(shape);
  const centre = new Float64Array(centreWidth(shape));
  firstLayerCentre(shape, params, rows.centre, centre);
  const out = new Float64Array(rows.rows * shape.events);
  for (let r = 0; r < rows.rows; r++) {
    sparseForward(shape, params, rows, r, centre, ws);
    out.set(ws.eventLogits.subarray(0, shape.events), r * shape.events);
  }
  return out;
}

/** Event logits of every row of `m` (rows × events), its rows standardised by `standardiser`. */
export function eventLogits(
  shape: ModelShape,
  params: Float64Array,
  m: TrainingMatrix,
  standardiser = identityStandardiser(m.inputs),
): Float64Array {
  return sparseLogits(shape, params, sparseRows(m.x, standardiser));
}

/**
 * The logits of an ensemble (members share shape and standardiser): z = ln(mean_m softmax(z_m / T_m)),
 * so softmax(z) is the members' mean distribution and calibration treats the ensemble as one
 * model. `temperatures` (one per member, default 1) calibrate each member before the mean
 * (calibration mode "per-member"). One member gives its own logits unchanged.
 */
export function ensembleLogits(
  shape: ModelShape,
  members: readonly Float64Array[],
  m: TrainingMatrix,
  standardiser = identityStandardiser(m.inputs),
  temperatures?: readonly number[],
): Float64Array {
  if (members.length === 1) return eventLogits(shape, members[0], m, standardiser);
  const rows = sparseRows(m.x, standardiser);
  const mean = new Float64Array(m.rows * shape.events);
  for (const [member, params] of members.entries()) {
    const z = sparseLogits(shape, params, rows);
    for (let r = 0; r < m.rows; r++) {
      const row = z.subarray(r * shape.events, (r + 1) * shape.events);
      softmaxInPlace(row, shape.events, temperatures?.[member] ?? 1);
      for (let c = 0; c < shape.events; c++) mean[r * shape.events + c] += row[c] / members.length;
    }
  }
  for (let i = 0; i < mean.length; i++) mean[i] = Math.log(Math.max(mean[i], 1e-300));
  return mean;
}

/** Count-weighted NLL per sample of the event head at temperature `t`. */
export function validationNll(
  shape: ModelShape,
  params: Float64Array,
  m: TrainingMatrix,
  t: number | Calibration,
  standardiser = identityStandardiser(m.inputs),
): number {
  return nllOfLogits(eventLogits(shape, params, m, standardiser), m, shape.events, t);
}

function sum(v: Float64Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i];
  return s;
}
