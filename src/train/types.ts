// Types of the train stage: options of a training run and the adapter's card (its weights and
// features as saved are the student predictor's, src/predict/student/types.ts).

import type { Abstraction, Sample, SampleCapReport, State } from "../dataset/index.js";
import type { EventType } from "../core/index.js";
import {
  DEFAULT_EXPERT_EVIDENCE,
  type Activation,
  type ConfidenceEvidence,
  type ExpertEvidence,
  type FeasibilityRule,
  type ModelKind,
  type StudentFeatureFile,
  type StudentWeights,
} from "../predict/index.js";
import type { CardMetrics } from "./card-metrics.js";
import type { CalibrationMode } from "./calibration.js";
import type { Progress } from "../progress.js";

export const OBJECTIVES = ["ce", "kl", "trajectory"] as const;
/**
 * ce: cross-entropy on each observed next event; kl: KL(p̂‖q) per state, weighted by its samples;
 * trajectory: per sample, the discounted cross-entropy Σ_{j<k} γ^j·CE(e_{t+j}, q) over the run's
 * next k event types (docs/rollout.md), i.e. CE against their γ-weighted mixture.
 */
export type Objective = (typeof OBJECTIVES)[number];

export interface TrainStudentOptions {
  readonly objective: Objective;
  readonly model: ModelKind;
  /** Train the auxiliary reasoning-tag head. */
  readonly tags: boolean;
  /** Reweight rare events by tempered inverse frequency. */
  readonly balance: boolean;
  /**
   * Feed the go/ast static features of each program's source. Off by default: with tens of
   * training programs they identify the program and the model memorises it (they cost accuracy
   * on every holdout tried: docs/experiments/training.md); the columns are then all zero.
   */
  readonly staticFeatures: boolean;
  readonly abstraction: Abstraction;
  /** How the holdout was given (recorded on the card), e.g. "dir:kernels". */
  readonly holdoutSpec: string;
  readonly seed: number;
  readonly hidden: number;
  readonly activation: Activation;
  /**
   * Wire the n-gram experts' log-probabilities (EXPERT_SKIP_COLUMNS: in-context and training
   * n-gram) straight into the event logits beside the hidden layer, so the network learns a
   * correction on top of a weighted product of the experts.
   */
  readonly expertSkip: boolean;
  readonly epochs: number;
  readonly batchSize: number;
  readonly learningRate: number;
  readonly l2: number;
  readonly patience: number;
  readonly tagWeight: number;
  /** Exponent τ of the class weights (n_max / n_c)^τ, capped at `balanceCap`. */
  readonly balanceTemper: number;
  readonly balanceCap: number;
  /**
   * CE and trajectory objectives: at most this many of a program's samples become training rows
   * (a seeded choice among the samples the dataset's cap kept; docs/training.md).
   */
  readonly ceSamplesPerProgram: number;
  /** Trajectory objective: k, the run's next event types each sample is trained on. */
  readonly trajectorySteps: number;
  /** Trajectory objective: γ, the weight of step j is γ^j (normalised over the steps that exist). */
  readonly trajectoryDiscount: number;
  /**
   * `split` only: train and validate on split states at every 5 % (SPLIT_GRID_POINTS) instead of
   * only the scored 25/50/75 %: the same question at more points (src/train/split-grid.ts).
   */
  readonly splitGrid: boolean;
  /**
   * Events the prefix's replayed state rules out (src/predict/student/feasibility.ts): "top" makes the most
   * probable event a feasible one with the least change, so greedy rollouts never pick an
   * impossible event; "cap" caps their total at `infeasibleCap` (< 1/6 has the same guarantee);
   * "none" leaves the distribution as calibrated.
   */
  readonly feasibility: FeasibilityRule;
  readonly infeasibleCap: number;
  /**
   * ≥ 2: also calibrate on out-of-fold predictions of the fit side's families (that many folds,
   * one extra model each); 0: on the validation families only.
   */
  readonly calibrationFolds: number;
  /** How calibration rows are weighted: by samples (programs capped at 4× the median), or every family equally. */
  readonly calibrationWeighting: "samples" | "families";
  /**
   * "pooled": the ensemble's mean distribution calibrated as one model; "per-member": each
   * member at its own validation temperature before the mean, then as "pooled"; "in-context":
   * as "pooled", then a temperature that depends on the run's in-context predictability
   * (CONTEXT_CALIBRATION_FEATURE). The variants need calibrationFolds 0.
   */
  readonly calibrationMode: CalibrationMode;
  /**
   * Also fit β, the share of the row's in-context expert (ctx.mix.p.*: its run's in-context n-gram,
   * `ngram-ctx:4`'s answer) mixed into the calibrated distribution (EXPERT_WEIGHT_GRID, on the
   * validation NLL with T and α; β = 0 is the fit without it). On by default: under leave-family-out
   * CV it raised accuracy and lowered NLL at depth and split (docs/experiments/training.md).
   */
  readonly contextExpert: boolean;
  /**
   * With the expert's share earned by evidence: also fit T_m, a temperature on the mixed
   * distribution, on the validation families' NLL with the shares (1 unless it lowers it). On
   * by default: it keeps the larger share κ the default gives the expert from costing ECE.
   */
  readonly fitMixtureTemperature: boolean;
  /** With the expert's share earned by evidence: also fit T_c, a temperature on the expert before it is mixed in. */
  readonly fitExpertTemperature: boolean;
  /**
   * With the in-context expert: its share per row earned by the run's own earlier events (a
   * fixed-share Bayesian mixture of student and expert, src/predict/student/evidence.ts) in
   * place of the fixed share β; null: the fixed share. Pooled calibration without calibration
   * folds only (otherwise the fixed share).
   */
  readonly expertEvidence: ExpertEvidence | null;
  /**
   * With expertEvidence: the student's confidence as each run's own earlier events earn it — the
   * student at several temperatures weighed by a fixed-share mixture (src/predict/student/evidence.ts);
   * null: the calibrated student alone.
   */
  readonly confidenceEvidence: ConfidenceEvidence | null;
  /**
   * Read every feature clipped into the range its non-zero values had in the training rows (a
   * no-op on them, not on the validation rows early stopping reads; saved as weights.json's low and
   * high), so a row from code unlike the training rows never drives the network further than they
   * did. Off by default: neutral under CV and under a shift (docs/experiments/training.md).
   */
  readonly clipFeatures: boolean;
  /** Scale the training rows so that every family weighs the same in the fit (after the per-program cap). */
  readonly familyBalance: boolean;
  /**
   * Models averaged (seeds seed, seed + 1, …; each stopped early on its own; the mean
   * distribution is calibrated as one model). "auto": as many as fit ENSEMBLE_ROW_BUDGET
   * training rows, from 1 to MAX_ENSEMBLE_MEMBERS — a small training set (split states) gets
   * several, a large one (depth states) one.
   */
  readonly members: number | "auto";
  /** One line per stage (kept) and per epoch (transient), for progress on a terminal. */
  readonly onProgress?: Progress;
}

export const DEFAULT_TRAIN_OPTIONS: Omit<TrainStudentOptions, "objective" | "abstraction" | "holdoutSpec"> = {
  model: "mlp",
  tags: false,
  balance: false,
  staticFeatures: false,
  seed: 1,
  hidden: 32,
  activation: "tanh",
  expertSkip: false,
  epochs: 60,
  batchSize: 64,
  learningRate: 0.003,
  l2: 1e-4,
  patience: 6,
  tagWeight: 0.3,
  balanceTemper: 0.5,
  balanceCap: 10,
  ceSamplesPerProgram: 20_000,
  trajectorySteps: 4,
  trajectoryDiscount: 0.5,
  splitGrid: true,
  feasibility: "top",
  infeasibleCap: 0.15,
  calibrationFolds: 0,
  calibrationWeighting: "samples",
  calibrationMode: "pooled",
  contextExpert: true,
  fitMixtureTemperature: true,
  fitExpertTemperature: false,
  expertEvidence: DEFAULT_EXPERT_EVIDENCE,
  confidenceEvidence: null,
  clipFeatures: false,
  familyBalance: false,
  members: "auto",
};

/** Training rows an "auto" ensemble may spend in total (members × rows). */
export const ENSEMBLE_ROW_BUDGET = 15_000;
export const MAX_ENSEMBLE_MEMBERS = 5;

/** The members an ensemble of `rows` training rows gets. */
export function ensembleMembers(members: number | "auto", rows: number): number {
  if (members !== "auto") return members;
  return Math.max(1, Math.min(MAX_ENSEMBLE_MEMBERS, Math.floor(ENSEMBLE_ROW_BUDGET / Math.max(1, rows))));
}

/** The states and samples (with prefixes) of one side of a training split. */
export interface StudentSide {
  readonly programs: readonly string[];
  readonly states: readonly State[];
  readonly samples: readonly Sample[];
}

/**
 * A training run's data already split (the dataset stage's loadSplitData gives it): the
 * programs fitted on, the validation families (early stopping, calibration), and the held-out
 * programs scored for the card. Pooled states are pooled within each side only.
 */
export interface StudentData {
  readonly fit: StudentSide;
  readonly validation: StudentSide;
  readonly holdout: StudentSide;
  readonly programDirs: ReadonlyMap<string, string>;
  /** Family of each program (the split's); folds and family weights use it, else each program is its own. */
  readonly familyOf?: Readonly<Record<string, string>>;
}

export interface StudentCard {
  readonly name: string;
  readonly createdAt: string;
  readonly data: {
    readonly abstraction: Abstraction;
    readonly holdout: string;
    readonly trainPrograms: readonly string[];
    readonly validationPrograms: readonly string[];
    readonly holdoutPrograms: readonly string[];
    /** "program", or "run" when fewer than two training programs forced a split by run. */
    readonly validationSplit: "program" | "run";
    readonly trainSamples: number;
    readonly trainStates: number;
    readonly trainRows: number;
    readonly validationStates: number;
    readonly holdoutSamples: number;
    readonly holdoutStates: number;
    readonly classTotals: Readonly<Record<EventType, number>>;
    readonly classWeights: Readonly<Record<EventType, number>>;
    readonly programsWithoutStaticFeatures: readonly string[];
    /**
     * The per-program sample cap the split was loaded under and the programs it capped (fit,
     * validation and holdout; docs/dataset.md, "Bounded per program"); absent on cards of
     * students trained on data given in memory.
     */
    readonly sampleCap?: SampleCapReport;
  };
  readonly training: {
    readonly objective: Objective;
    readonly model: ModelKind;
    readonly tags: boolean;
    readonly balance: boolean;
    readonly staticFeatures: boolean;
    readonly seed: number;
    readonly hyperParameters: Readonly<Record<string, number | string>>;
    readonly featureVersion: number;
    readonly features: number;
    readonly parameters: number;
    readonly epochsRun: number;
    readonly bestEpoch: number;
    readonly temperature: number;
    /** Weight α of the training class marginal mixed into every prediction (0: temperature scaling alone). */
    readonly priorWeight: number;
    readonly validationNll: number;
  };
  /** Holdout metrics; null when nothing was held out. */
  readonly holdout: CardMetrics | null;
  /** The same metrics on the validation programs (after calibration). */
  readonly validation: CardMetrics | null;
}

export interface TrainedStudent {
  readonly weights: StudentWeights;
  readonly features: StudentFeatureFile;
  readonly card: StudentCard;
}
