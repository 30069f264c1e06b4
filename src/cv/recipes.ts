// The students cross-validation trains in every fold: `student:RECIPE` names a training recipe,
// never a saved adapter (one trained on some split may have seen the test fold).

import { UsageError } from "../errors.js";
import {
  DEFAULT_CONFIDENCE_EVIDENCE,
  DEFAULT_EXPERT_EVIDENCE,
  parsePredictorSpec,
  type ConfidenceEvidence,
  type ExpertEvidence,
} from "../predict/index.js";
import { DEFAULT_TRAIN_OPTIONS, type CalibrationMode, type TrainStudentOptions } from "../train/index.js";

/**
 * What CV trains for `student:RECIPE`: RECIPE is an objective (ce, kl, trajectory) followed by
 * any of "-tags" (the reasoning-tag head), "-balance" (rare-event weights), "-calfoldsN"
 * (also calibrate on out-of-fold predictions of N training-family folds: `train
 * --calibration-folds N`), "-memcal" (each ensemble member calibrated before averaging:
 * `--calibration-mode per-member`) and "-ctxcal" (a temperature that depends on the run's
 * in-context predictability: `--calibration-mode in-context`), "-skip" (the n-gram experts'
 * log-probabilities wired into the event logits: `--expert-skip`) and "-noctxmix" (without the run's
 * in-context n-gram mixed into the calibrated distribution: `--no-context-expert`), "-shareN" (the largest share κ of the
 * evidence-earned mixture N/100, e.g. -share30: `--expert-evidence π,ρ,N/100`), "-nomixtemp" (no
 * temperature fitted on the mixture: `--no-mixture-temperature`), "-exptemp" (a temperature fitted
 * on the expert before it is mixed in: `--expert-temperature`), "-confevid" (the
 * student's confidence earned by evidence too: `--confidence-evidence`), "-clip" (features clipped
 * into their training range: `--clip-features`), "-noevid" (its
 * share fixed rather than earned by the run's earlier events: `--no-expert-evidence`) and "-fambal"
 * (every training family weighs the same: `--family-balance`), e.g. "kl", "kl-tags",
 * "kl-calfolds4" — `schedlab run` names its students so. A path is refused: a saved adapter
 * was trained on some split, so it may have seen the test fold.
 */
export interface StudentRecipe {
  readonly name: string;
  readonly objective: "ce" | "kl" | "trajectory";
  readonly tags: boolean;
  readonly balance: boolean;
  readonly expertSkip: boolean;
  readonly contextExpert: boolean;
  /** Fit the temperature of the evidence-earned mixture T_m (the default; recipe flag -nomixtemp: not). */
  readonly fitMixtureTemperature: boolean;
  /** Fit a temperature on the expert before mixing, T_c (recipe flag -exptemp). */
  readonly fitExpertTemperature: boolean;
  /** The evidence-earned share of the in-context expert; null: the fixed share (recipe flag -noevid). */
  readonly expertEvidence: ExpertEvidence | null;
  /** The student's confidence earned by evidence (recipe flag -confevid); null: the calibrated student. */
  readonly confidenceEvidence: ConfidenceEvidence | null;
  readonly familyBalance: boolean;
  /** Features clipped into their training range (recipe flag -clip). */
  readonly clipFeatures: boolean;
  /** ≥ 2: calibration also on out-of-fold predictions; undefined: the training default. */
  readonly calibrationFolds?: number;
  /** A calibration variant; undefined: the training default. */
  readonly calibrationMode?: CalibrationMode;
}

const CALIBRATION_FOLDS = /^calfolds(\d+)$/;
const LARGEST_SHARE = /^share(\d+)$/;
const MODE_FLAGS: Readonly<Record<string, CalibrationMode>> = { memcal: "per-member", ctxcal: "in-context" };

export function parseStudentRecipe(name: string): StudentRecipe {
  const [objective, ...flags] = name.split("-");
  const known = ["ce", "kl", "trajectory"] as const;
  const calibrationFolds = flags.map((f) => CALIBRATION_FOLDS.exec(f)).find((m) => m !== null);
  const folds = calibrationFolds === undefined || calibrationFolds === null ? undefined : Number(calibrationFolds[1]);
  const modes = flags.filter((f) => f in MODE_FLAGS).map((f) => MODE_FLAGS[f]!);
  const shareFlag = flags.map((f) => LARGEST_SHARE.exec(f)).find((m) => m !== null);
  const largestShare = shareFlag === undefined || shareFlag === null ? undefined : Number(shareFlag[1]) / 100;
  const valid =
    (known as readonly string[]).includes(objective ?? "") &&
    flags.every(
      (f) =>
        f === "tags" ||
        f === "balance" ||
        f === "skip" ||
        f === "noctxmix" ||
        f === "noevid" ||
        f === "nomixtemp" ||
        f === "exptemp" ||
        f === "confevid" ||
        f === "clip" ||
        f === "fambal" ||
        f in MODE_FLAGS ||
        CALIBRATION_FOLDS.test(f) ||
        LARGEST_SHARE.test(f),
    ) &&
    (largestShare === undefined || (largestShare > 0 && largestShare <= 1 && !flags.includes("noevid"))) &&
    !(flags.includes("confevid") && flags.includes("noevid")) &&
    new Set(flags.map((f) => f.replace(/\d+$/, ""))).size === flags.length &&
    (folds === undefined || folds >= 2) &&
    modes.length <= 1 &&
    (modes.length === 0 || folds === undefined);
  if (!valid) {
    throw new UsageError(
      `"${name}" is not a student recipe (eval --cv trains one in every fold, run --student on the corpus)`,
      "Name a recipe: an objective (ce, kl, trajectory) with optional -tags, -balance, -skip, -noctxmix, -nomixtemp, -exptemp, -confevid, -clip, " +
        "-noevid or -shareN (1 ≤ N ≤ 100), -fambal, " +
        "and one of -calfoldsN (N ≥ 2), -memcal, -ctxcal, e.g. student:kl or student:kl-tags; " +
        "saved adapters cannot be cross-validated (they were trained on some of the test families).",
    );
  }
  return {
    name,
    objective: objective as StudentRecipe["objective"],
    tags: flags.includes("tags"),
    balance: flags.includes("balance"),
    expertSkip: flags.includes("skip"),
    contextExpert: !flags.includes("noctxmix"),
    fitMixtureTemperature: !flags.includes("nomixtemp"),
    fitExpertTemperature: flags.includes("exptemp"),
    expertEvidence: flags.includes("noevid")
      ? null
      : largestShare === undefined
        ? DEFAULT_TRAIN_OPTIONS.expertEvidence
        : { ...DEFAULT_EXPERT_EVIDENCE, maxShare: largestShare },
    confidenceEvidence: flags.includes("confevid") ? DEFAULT_CONFIDENCE_EVIDENCE : null,
    familyBalance: flags.includes("fambal"),
    clipFeatures: flags.includes("clip"),
    ...(folds === undefined ? {} : { calibrationFolds: folds }),
    ...(modes[0] === undefined ? {} : { calibrationMode: modes[0] }),
  };
}

/** The training options a recipe sets (the rest are the caller's or `schedlab train`'s defaults). */
export function recipeTrainOptions(recipe: StudentRecipe): Partial<TrainStudentOptions> {
  return {
    objective: recipe.objective,
    tags: recipe.tags,
    balance: recipe.balance,
    expertSkip: recipe.expertSkip,
    contextExpert: recipe.contextExpert,
    fitMixtureTemperature: recipe.fitMixtureTemperature,
    fitExpertTemperature: recipe.fitExpertTemperature,
    expertEvidence: recipe.expertEvidence,
    confidenceEvidence: recipe.confidenceEvidence,
    familyBalance: recipe.familyBalance,
    clipFeatures: recipe.clipFeatures,
    ...(recipe.calibrationFolds === undefined ? {} : { calibrationFolds: recipe.calibrationFolds }),
    ...(recipe.calibrationMode === undefined ? {} : { calibrationMode: recipe.calibrationMode }),
  };
}

/** The student recipes the predictor specs name, also inside cal:SPEC, each once, in order. */
export function studentRecipesOf(specs: readonly string[]): StudentRecipe[] {
  const names: string[] = [];
  const visit = (spec: string): void => {
    const { kind, argument } = parsePredictorSpec(spec);
    if (kind === "student" && !names.includes(argument)) names.push(argument);
    if (kind === "cal") visit(argument);
  };
  specs.forEach(visit);
  return names.map(parseStudentRecipe);
}
