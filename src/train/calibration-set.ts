// What a student's calibration is fitted on (pure): the validation families' states, and
// optionally out-of-fold predictions of the fit side's families (`calibrationFolds`) and
// family-equal weights (`calibrationWeighting`), so the calibration sees how the student
// behaves on more unseen families than the validation side holds. Measured on the
// `dir:kernels` proxy, neither moved holdout ECE (docs/experiments/training.md); they stay as options.

import { seededRandom, shuffleInPlace } from "../random.js";
import { EVENT_TYPES } from "../core/index.js";
import { featureRowsAt, joinedFeatureRows } from "./feature-matrix.js";
import { eventLogits, fitModel, type TrainingMatrix } from "./fit.js";
import type { Standardiser } from "./standardiser.js";
import type { ModelShape } from "../predict/index.js";
import type { TrainStudentOptions } from "./types.js";
import { familyOfProgram } from "./weighting.js";

const K = EVENT_TYPES.length;

/** Logits with their calibration targets (p̂, counts, feasible flags) and each row's program. */
export interface CalibrationSet {
  readonly logits: Float64Array;
  readonly rows: Pick<TrainingMatrix, "rows" | "inputs" | "x" | "events" | "counts" | "feasible">;
  readonly programs: readonly string[];
}

/** Rows `indices` of `m` (copied). */
function subsetRows(m: TrainingMatrix, indices: readonly number[]): TrainingMatrix {
  const n = indices.length;
  const feasible = new Uint8Array(n * K);
  const events = new Float64Array(n * K);
  const weights = new Float64Array(n);
  const counts = new Float64Array(n);
  indices.forEach((r, i) => {
    feasible.set(m.feasible.subarray(r * K, (r + 1) * K), i * K);
    events.set(m.events.subarray(r * K, (r + 1) * K), i * K);
    weights[i] = m.weights[r];
    counts[i] = m.counts[r];
  });
  return { rows: n, inputs: m.inputs, x: featureRowsAt(m.x, indices), feasible, events, weights, counts, tags: null };
}

/**
 * Out-of-fold calibration rows: the fit side's families are split into `calibrationFolds`
 * folds; for each, a model trained the same way without that fold (early-stopped on the
 * validation families) predicts the fold's states. The calibration then sees how the student
 * behaves on many more unseen families than the validation side holds.
 */
export function outOfFoldRows(
  shape: ModelShape,
  train: TrainingMatrix,
  rowPrograms: readonly string[],
  stopping: TrainingMatrix,
  standardiser: Standardiser,
  fitStates: TrainingMatrix,
  fitStatePrograms: readonly string[],
  familyOf: Readonly<Record<string, string>> | undefined,
  options: TrainStudentOptions,
  bestEpoch: number,
): CalibrationSet {
  const families = [...new Set(fitStatePrograms.map((p) => familyOfProgram(familyOf, p)))].sort();
  shuffleInPlace(families, seededRandom(options.seed ^ 0xf01d));
  const folds = Math.min(options.calibrationFolds, families.length);
  const foldOf = new Map(families.map((f, i) => [f, i % folds] as const));
  const logits = new Float64Array(fitStates.rows * K);
  for (let f = 0; f < folds; f++) {
    const weights = Float64Array.from(train.weights, (w, r) =>
      foldOf.get(familyOfProgram(familyOf, rowPrograms[r])) === f ? 0 : w,
    );
    const model = fitModel(
      shape,
      { ...train, weights },
      stopping,
      {
        seed: options.seed + 1 + f,
        epochs: Math.max(1, bestEpoch),
        batchSize: options.batchSize,
        learningRate: options.learningRate,
        l2: options.l2,
        patience: Math.max(1, bestEpoch),
        tagWeight: options.tagWeight,
      },
      standardiser,
    );
    const indices = fitStatePrograms.flatMap((p, r) => (foldOf.get(familyOfProgram(familyOf, p)) === f ? [r] : []));
    const foldLogits = eventLogits(shape, model.params, subsetRows(fitStates, indices), standardiser);
    indices.forEach((r, i) => logits.set(foldLogits.subarray(i * K, (i + 1) * K), r * K));
    options.onProgress?.(`calibration fold ${f + 1}/${folds}: ${indices.length} out-of-fold states`);
  }
  return { logits, rows: fitStates, programs: fitStatePrograms };
}

/** Two calibration sets as one (a's rows first). */
export function withOutOfFold(a: CalibrationSet, b: CalibrationSet): CalibrationSet {
  const join = <T extends Float64Array | Uint8Array>(x: T, y: T, make: (n: number) => T): T => {
    const out = make(x.length + y.length);
    out.set(x, 0);
    out.set(y, x.length);
    return out;
  };
  return {
    logits: join(a.logits, b.logits, (n) => new Float64Array(n)),
    rows: {
      rows: a.rows.rows + b.rows.rows,
      inputs: a.rows.inputs,
      x: joinedFeatureRows(a.rows.x, b.rows.x),
      events: join(a.rows.events, b.rows.events, (n) => new Float64Array(n)),
      counts: join(a.rows.counts, b.rows.counts, (n) => new Float64Array(n)),
      feasible: join(a.rows.feasible, b.rows.feasible, (n) => new Uint8Array(n)),
    },
    programs: [...a.programs, ...b.programs],
  };
}
