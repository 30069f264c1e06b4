// One training run: from a split's fit, validation and holdout sides, build feature rows for
// the chosen objective, fit (an ensemble of seeds where the set is small), calibrate
// (temperature and prior weight) and score for the card. Pure apart from reading program
// sources for static features.

import { EVENT_TYPES, type EventType } from "../core/index.js";
import type { State } from "../dataset/index.js";
import { UsageError } from "../errors.js";
import {
  EXPERT_SKIP_COLUMNS,
  FEATURE_COUNT,
  FEATURE_SPEC,
  FEATURE_VERSION,
  fitNgram,
  staticFeaturesOf,
  TAG_CLASSES,
  type FeatureInputs,
  type ModelShape,
  type StaticFeatures,
  type StudentWeights,
} from "../predict/index.js";
import { outOfFoldRows, withOutOfFold } from "./calibration-set.js";
import {
  CONTEXT_CALIBRATION_FEATURE,
  fitContextTemperature,
  temperatureOrOne,
  fitStudentCalibration,
  memberTemperatures,
} from "./calibration.js";
import {
  contextualNll,
  majorityEventOf,
  scoreStates,
  studentCard,
  studentEvidence,
  type CalibratedEnsemble,
} from "./card.js";
import { fitStandardiser, type Standardiser } from "./standardiser.js";
import { denseFeatures } from "./feature-matrix.js";
import { ensembleLogits, eventLogits, fitModel, type FitResult, type TrainingMatrix } from "./fit.js";
import { cappedStateRows, featureColumn, holdoutRows, keptStates, studentRows, type StudentRows } from "./rows.js";
import { savedNgram } from "./save-adapter.js";
import { runsOfSamples, splitGridStates } from "./split-grid.js";
import {
  ensembleMembers,
  type StudentData,
  type StudentSide,
  type TrainedStudent,
  type TrainStudentOptions,
} from "./types.js";
import { classMarginal, classTotals, classWeights, familyEqualised } from "./weighting.js";

const K = EVENT_TYPES.length;
const T = TAG_CLASSES.length;
/** Order of the training n-gram stacked into the features (the ngram:3 baseline's). */
export const STACKED_NGRAM_ORDER = 3;

/** Loads static features of each program with a directory; failures give null and are listed. */
export async function loadStaticFeatures(
  programs: readonly string[],
  dirs: ReadonlyMap<string, string>,
): Promise<{ features: Map<string, StaticFeatures>; missing: string[] }> {
  const features = new Map<string, StaticFeatures>();
  const missing: string[] = [];
  for (const program of programs) {
    const dir = dirs.get(program);
    if (dir === undefined) {
      missing.push(program);
      continue;
    }
    try {
      features.set(program, await staticFeaturesOf(dir));
    } catch {
      missing.push(program);
    }
  }
  return { features, missing };
}

/** Trains a student on split data and returns its weights, feature file and card. */
export async function trainOnSplit(
  name: string,
  data: StudentData,
  options: TrainStudentOptions,
): Promise<TrainedStudent> {
  if (options.calibrationMode !== "pooled" && options.calibrationFolds >= 2) {
    throw new UsageError(
      `calibration mode ${options.calibrationMode} is fitted on the validation families alone and cannot be combined with calibration folds`,
      "Pass --calibration-folds 0, or --calibration-mode pooled.",
    );
  }
  if (data.validation.programs.length === 0) {
    throw new UsageError(
      `only ${data.fit.programs.length} training program(s) left after the holdout and none for validation: ` +
        "a validation split for early stopping and calibration needs at least 2 (whole families where there " +
        "are several)",
      "Collect traces of more programs, or hold out fewer (--holdout).",
    );
  }
  const split = { train: data.fit.programs, validation: data.validation.programs, holdout: data.holdout.programs };
  const programs = [...split.train, ...split.validation, ...split.holdout];
  const { features: staticFeatures, missing } = options.staticFeatures
    ? await loadStaticFeatures(programs, data.programDirs)
    : { features: new Map<string, StaticFeatures>(), missing: [] };
  const staticOf = (program: string): StaticFeatures | null => staticFeatures.get(program) ?? null;
  // The training n-gram the features stack (ngram.*, and the base of ctx.mix): fitted on the
  // fit side's samples only, like the ngram:3 baseline, and saved with the adapter.
  const ngram = fitNgram(STACKED_NGRAM_ORDER, 1, { samples: data.fit.samples });
  const inputs: FeatureInputs = { staticOf, ngram };
  // Split states are trained on at every 5 % of the run, the same question at more points.
  const grid = options.abstraction === "split" && options.splitGrid;
  const gridded = (side: StudentSide): StudentSide =>
    grid ? { programs: side.programs, ...splitGridStates(runsOfSamples(side.samples)) } : side;
  const fitSide = gridded(data.fit);
  const validationSide = gridded(data.validation);
  const holdoutStates = data.holdout.states;
  if (fitSide.samples.length === 0)
    throw new UsageError(
      "no samples in the training programs",
      "Check the abstraction and that the training programs' runs were ingested.",
    );

  const totals = classTotals(fitSide.samples);
  const weights = options.balance
    ? classWeights(totals, options.balanceTemper, options.balanceCap)
    : classWeights(totals, 0, 1);
  const {
    fits,
    student: fitted,
    trainRows,
    validation,
  } = fittedStudent(
    fitSide,
    validationSide,
    keptStates(holdoutStates).length,
    inputs,
    totals,
    weights,
    data.familyOf,
    options,
  );
  // The validation side's evidence-earned expert shares, for its NLL and its card metrics alike.
  const validationShares =
    fitted.evidence === undefined
      ? null
      : studentEvidence(fitted, fitted.evidence, keptStates(validationSide.states), inputs);
  // With shares earned by evidence, a temperature on the expert before it is mixed in (T_c), then
  // one on the mixture (T_m), each when asked, on the same validation families; the shares
  // themselves read the unmixed student and the raw expert, so neither moves them.
  const withTemperature = (
    base: typeof fitted,
    key: "expertTemperature" | "mixtureTemperature",
    wanted: boolean,
  ): typeof fitted =>
    validationShares === null || !wanted
      ? base
      : {
          ...base,
          calibration: {
            ...base.calibration,
            [key]: temperatureOrOne((t) =>
              contextualNll(
                base.validationLogits,
                validation,
                { ...base, calibration: { ...base.calibration, [key]: t } },
                validationShares,
              ),
            ),
          },
        };
  const student = withTemperature(
    withTemperature(fitted, "expertTemperature", options.fitExpertTemperature),
    "mixtureTemperature",
    options.fitMixtureTemperature,
  );
  const majorityEvent = majorityEventOf(fitSide.samples, validationSide.states);
  const card = studentCard({
    name,
    options,
    programs: split,
    splitGrid: grid,
    trainSamples: fitSide.samples.length,
    trainStates: fitSide.states.length,
    trainRows,
    validationStates: validationSide.states.length,
    holdoutStates,
    classTotals: totals,
    classWeights: weights,
    programsWithoutStaticFeatures: missing,
    student,
    fits,
    validationNll: contextualNll(student.validationLogits, validation, student, validationShares),
    // The holdout's rows are built only now, when the training rows are gone.
    holdout: scoreStates(holdoutStates, holdoutRows(holdoutStates, inputs), student, majorityEvent, inputs),
    validation: scoreStates(validationSide.states, validation, student, majorityEvent, inputs, validationShares),
  });
  const staticTable: Record<string, StaticFeatures> = {};
  for (const [program, f] of [...staticFeatures].sort(([a], [b]) => a.localeCompare(b))) staticTable[program] = f;
  return {
    weights: studentWeights(student, options.staticFeatures),
    features: { spec: FEATURE_SPEC, staticFeatures: staticTable, ngram: savedNgram(ngram) },
    card,
  };
}

/**
 * The student fitted and calibrated: its rows built, its models fitted on the training rows
 * (stopped early on the validation side) and calibrated on the validation families. Returns
 * what the card needs of the rows, so the training rows die with this call.
 */
function fittedStudent(
  fitSide: StudentSide,
  validationSide: StudentSide,
  holdoutRowCount: number,
  inputs: FeatureInputs,
  totals: Readonly<Record<EventType, number>>,
  weights: Readonly<Record<EventType, number>>,
  familyOf: StudentData["familyOf"],
  options: TrainStudentOptions,
): {
  fits: FitResult[];
  student: CalibratedEnsemble & { readonly validationLogits: Float64Array };
  trainRows: number;
  validation: TrainingMatrix;
} {
  const rows = studentRows(fitSide, validationSide, inputs, weights, options);
  if (options.familyBalance) rows.train.weights.set(familyEqualised(rows.train.weights, rows.trainPrograms, familyOf));
  options.onProgress?.(
    `${rows.train.rows} training rows (${options.objective}), ${rows.validation.rows} validation ` +
      `and ${holdoutRowCount} holdout states, ${FEATURE_COUNT} features`,
  );
  // The training range of every column goes with the standardiser only when asked (--clip-features).
  const { mean, std, low, high } = fitStandardiser(rows.train);
  const standardiser: Standardiser = options.clipFeatures ? { mean, std, low, high } : { mean, std };
  const shape: ModelShape = {
    kind: options.model,
    inputs: FEATURE_COUNT,
    hidden: options.model === "mlp" ? options.hidden : 0,
    activation: options.activation,
    events: K,
    tags: options.tags ? T : 0,
    ...(options.expertSkip ? { skip: EXPERT_SKIP_COLUMNS } : {}),
  };
  const fits = fitEnsemble(shape, rows, standardiser, options);
  const student = calibrateEnsemble(
    shape,
    fits,
    rows,
    standardiser,
    { fit: fitSide.states, validation: validationSide.states },
    inputs,
    classMarginal(totals),
    familyOf,
    options,
  );
  return { fits, student, trainRows: rows.train.rows, validation: rows.validation };
}

/**
 * Fits the student's models: one, or an ensemble of seeds (seed, seed + 1, …) where the
 * training set is small (split), whose mean distribution is calibrated as one model.
 */
function fitEnsemble(
  shape: ModelShape,
  rows: StudentRows,
  standardiser: Standardiser,
  options: TrainStudentOptions,
): FitResult[] {
  const memberCount = ensembleMembers(options.members, rows.train.rows);
  return Array.from({ length: memberCount }, (_, member) =>
    fitModel(
      shape,
      rows.train,
      rows.stopping,
      {
        seed: options.seed + member,
        epochs: options.epochs,
        batchSize: options.batchSize,
        learningRate: options.learningRate,
        l2: options.l2,
        patience: options.patience,
        tagWeight: options.tagWeight,
        onEpoch: (epoch, loss) =>
          options.onProgress?.(
            `${memberCount > 1 ? `member ${member + 1}/${memberCount} ` : ""}epoch ${epoch}: validation NLL ${loss.toFixed(4)}`,
            true,
          ),
      },
      standardiser,
    ),
  );
}

/**
 * Fits the ensemble's calibration on the validation families (and, with calibration folds,
 * out-of-fold predictions of the fit side's): per-member temperatures, then temperature and
 * the weight of the training class marginal, then the in-context temperature, as the
 * calibration mode asks.
 */
function calibrateEnsemble(
  shape: ModelShape,
  fits: readonly FitResult[],
  rows: StudentRows,
  standardiser: Standardiser,
  states: { readonly fit: readonly State[]; readonly validation: readonly State[] },
  inputs: FeatureInputs,
  marginal: Float64Array,
  familyOf: StudentData["familyOf"],
  options: TrainStudentOptions,
): CalibratedEnsemble & { readonly validationLogits: Float64Array } {
  const { validation } = rows;
  const members = fits.map((f) => f.params);
  // Calibration mode "per-member": each member's own temperature before the mean.
  const perMember =
    options.calibrationMode === "per-member" && members.length > 1
      ? memberTemperatures(
          members.map((p) => eventLogits(shape, p, validation, standardiser)),
          validation,
          K,
        )
      : undefined;
  const validationLogits = ensembleLogits(shape, members, validation, standardiser, perMember);
  // Calibration toward the training class marginal: a model confidently wrong on programs it
  // has not seen keeps a floor α·prior on every event that can occur, which temperature alone
  // only buys by flattening every prediction (docs/training.md, "Calibration").
  const validationSet = {
    logits: validationLogits,
    rows: validation,
    programs: keptStates(states.validation).map((s) => s.program),
  };
  const calibrationSet =
    options.calibrationFolds >= 2
      ? withOutOfFold(
          validationSet,
          outOfFoldRows(
            shape,
            rows.train,
            rows.trainPrograms,
            rows.stopping,
            standardiser,
            cappedStateRows(states.fit, inputs),
            keptStates(states.fit).map((s) => s.program),
            familyOf,
            options,
            fits[0].bestEpoch,
          ),
        )
      : validationSet;
  const calibrationRows =
    options.calibrationWeighting === "families"
      ? {
          ...calibrationSet.rows,
          counts: familyEqualised(calibrationSet.rows.counts, calibrationSet.programs, familyOf),
        }
      : calibrationSet.rows;
  // The in-context expert's columns, read by row and column: the dense rows, for this fit only.
  const expertFeatures = options.contextExpert ? denseFeatures(calibrationRows.x) : null;
  const pooled = fitStudentCalibration(
    calibrationSet.logits,
    calibrationRows,
    K,
    marginal,
    calibrationRows.feasible,
    options,
    expertFeatures,
  );
  // Calibration mode "in-context": the temperature scaled by how predictable the run has been to itself.
  // The expert's share earned by each run's own earlier events (the default) in place of the fixed
  // share β; the pooled (T, α) are kept. Not with calibration folds or another calibration mode.
  const evidence =
    options.expertEvidence !== null &&
    options.contextExpert &&
    calibrationSet === validationSet &&
    options.calibrationMode === "pooled"
      ? options.expertEvidence
      : undefined;
  const { calibration, context } =
    options.calibrationMode === "in-context"
      ? fitContextTemperature(
          calibrationSet.logits,
          calibrationRows,
          K,
          pooled,
          calibrationRows.feasible,
          featureColumn(validation, CONTEXT_CALIBRATION_FEATURE),
          CONTEXT_CALIBRATION_FEATURE,
          expertFeatures,
        )
      : { calibration: pooled, context: undefined };
  return {
    shape,
    members,
    standardiser,
    memberTemperatures: perMember,
    calibration,
    context,
    evidence,
    confidence: evidence === undefined ? undefined : (options.confidenceEvidence ?? undefined),
    validationLogits,
  };
}

/** weights.json of the calibrated ensemble (format version 2). */
function studentWeights(student: CalibratedEnsemble, usesStaticFeatures: boolean): StudentWeights {
  const { shape, members, standardiser, memberTemperatures, calibration, context } = student;
  return {
    format: "schedlab-student",
    formatVersion: 2,
    featureVersion: FEATURE_VERSION,
    shape,
    params: Array.from(members[0]),
    ...(members.length > 1 ? { moreMembers: members.slice(1).map((p) => Array.from(p)) } : {}),
    mean: Array.from(standardiser.mean),
    ...(standardiser.low === undefined || standardiser.high === undefined
      ? {}
      : { low: Array.from(standardiser.low), high: Array.from(standardiser.high) }),
    std: Array.from(standardiser.std),
    temperature: calibration.temperature,
    priorWeight: calibration.priorWeight,
    prior: Array.from(calibration.prior),
    ...(calibration.expertWeight === undefined ? {} : { expertWeight: calibration.expertWeight }),
    ...(calibration.mixtureTemperature === undefined ? {} : { mixtureTemperature: calibration.mixtureTemperature }),
    ...(calibration.expertTemperature === undefined ? {} : { expertTemperature: calibration.expertTemperature }),
    ...(memberTemperatures === undefined ? {} : { memberTemperatures }),
    ...(context === undefined ? {} : { contextTemperature: context }),
    ...(student.evidence === undefined ? {} : { expertEvidence: student.evidence }),
    ...(student.confidence === undefined ? {} : { confidenceEvidence: student.confidence }),
    feasibility: calibration.feasibility,
    infeasibleCap: calibration.infeasibleCap,
    eventTypes: [...EVENT_TYPES],
    tagClasses: [...TAG_CLASSES],
    usesStaticFeatures,
  };
}
