// runCrossValidation(): `schedlab eval --cv K` over a database — the corpus's families dealt
// into K folds (src/eval/cv.ts), and per fold the split loaded by the one split loader, the
// requested students trained by the one training path (trainFromDatabase: early stopping and
// calibration on validation families drawn from the training folds only), every predictor
// fitted and queried on the test fold through the prediction cache (and on the fold's validation
// families, which calibrate its conformal prediction sets); the folds pooled and scored once.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import {
  loadSplitData,
  samplesWithPrefixes,
  sideSampleCounts,
  splitCandidates,
  splitPrograms,
  type Abstraction,
  type HoldoutSplit,
  type RunSelection,
  type SplitData,
  type SplitProgram,
} from "../dataset/index.js";
import {
  assignFolds,
  foldsBySource,
  type FoldGrouping,
  conformalThresholdOfStates,
  crossValidationScores,
  CV_REFERENCE,
  familyWeightsOfCounts,
  foldColumnsOf,
  poolFolds,
  pooledMajorityClass,
  probabilityColumn,
  type CrossValidationScores,
  type FoldAssignment,
  type FoldColumns,
  type PredictorFailure,
  type ProbabilityColumn,
} from "../eval/index.js";
import {
  cachedStatePredictions,
  createPredictor,
  FEATURE_VERSION,
  predictWithCache,
  type PredictorContext,
  type PredictorSettings,
} from "../predict/index.js";
import { collectGarbage } from "../memory.js";
import { SchedlabError, UsageError } from "../errors.js";
import type { SchedlabDatabase } from "../store/index.js";
import { EVENT_TYPES, type EventType } from "../core/index.js";
import { DEFAULT_TRAIN_OPTIONS, trainFromDatabase, type TrainStudentOptions } from "../train/index.js";
import type { Progress } from "../progress.js";
import { recipeTrainOptions, studentRecipesOf, type StudentRecipe } from "./recipes.js";
import { majorityLabel } from "../metrics/index.js";

/** Bumped when what a cached fold student depends on changes outside the hashed inputs. */
const CV_CACHE_VERSION = 1;

/** Training settings CV may override for its students (the rest are `schedlab train`'s defaults). */
export type CrossValidationStudentSettings = Partial<
  Pick<TrainStudentOptions, "model" | "epochs" | "hidden" | "seed" | "members" | "calibrationFolds">
>;

export interface CrossValidationOptions {
  /** Predictor specs as eval takes them; `student:RECIPE` names a recipe (recipes.ts) trained per fold. */
  readonly predictors: readonly string[];
  /** Each abstraction is cross-validated on its own (folds balanced by its own sample counts). */
  readonly abstractions: readonly Abstraction[];
  /** K ≥ 2. */
  readonly folds: number;
  /** Seed of the fold assignment (default 1). */
  readonly foldSeed?: number;
  /** "family" (default): families dealt into `folds` balanced by samples; "source": one fold per source, `folds` unused. */
  readonly foldBy?: FoldGrouping;
  readonly runs?: RunSelection;
  /** Put the test corpora's families into folds too (default: leave them out entirely). */
  readonly includeTestCorpora?: boolean;
  /** Root of the fold students: ADAPTERS/cv/<hash>/fold-<i>/<recipe> (default "adapters"). */
  readonly adapters?: string;
  /** Retrain fold students even when a cached one exists. */
  readonly force?: boolean;
  readonly student?: CrossValidationStudentSettings;
  readonly predictorContext?: PredictorSettings;
  readonly bootstrapResamples?: number;
  readonly bootstrapSeed?: number;
  readonly onProgress?: Progress;
}

/** One fold of one abstraction, as reported. */
export interface FoldSummary {
  readonly fold: number;
  readonly families: readonly string[];
  readonly testPrograms: number;
  readonly testSamples: number;
  readonly trainPrograms: number;
  readonly validationPrograms: number;
  readonly majorityClass: EventType;
  /** Where its students are (recipe → adapter directory) and whether they were reused. */
  readonly students: readonly { readonly recipe: string; readonly path: string; readonly reused: boolean }[];
}

export interface CrossValidatedAbstraction {
  readonly abstraction: Abstraction;
  readonly assignment: FoldAssignment;
  /** ADAPTERS/cv/<hash>: the fold students of this abstraction. */
  readonly cacheDir: string;
  readonly folds: readonly FoldSummary[];
  readonly scores: CrossValidationScores;
  readonly failures: readonly PredictorFailure[];
  readonly seconds: number;
}

export interface CrossValidationRun {
  readonly folds: number;
  readonly foldSeed: number;
  readonly reference: string;
  readonly abstractions: readonly CrossValidatedAbstraction[];
}

const failureOf = (predictor: string, fold: number, error: unknown): PredictorFailure =>
  error instanceof SchedlabError
    ? { predictor, message: `fold ${fold}: ${error.message}`, hint: error.hint }
    : {
        predictor,
        message: `fold ${fold}: ${error instanceof Error ? error.message : String(error)}`,
        hint: "This looks like a bug in the predictor backend; report it with the predictor spec.",
      };

/** The fold's split: its families held out, the other folds' programs trained on, validation families drawn from those. */
function foldSplit(
  candidates: readonly SplitProgram[],
  test: readonly string[],
  fold: number,
  k: number,
): HoldoutSplit {
  const name = `cv-fold-${fold}-of-${k}`;
  // A saved-holdout lookup keeps splitPrograms' rules (whole families out, validation by family) without a list spec.
  const split = splitPrograms(candidates, name, (n) => (n === name ? test : undefined));
  return { ...split, spec: `cv:${k}#${fold}`, description: `leave-family-out fold ${fold} of ${k}` };
}

function cacheKey(
  abstraction: Abstraction,
  options: CrossValidationOptions,
  assignment: FoldAssignment,
  dataFingerprint: string,
): string {
  return createHash("sha256")
    .update(
      JSON.stringify({
        v: CV_CACHE_VERSION,
        features: FEATURE_VERSION,
        abstraction,
        runs: options.runs ?? "plain",
        folds: assignment.folds,
        // The defaults too: a student recipe means the defaults of the schedlab that trained it.
        student: { ...DEFAULT_TRAIN_OPTIONS, ...options.student },
        data: dataFingerprint,
      }),
    )
    .digest("hex")
    .slice(0, 16);
}

async function trainFoldStudents(
  db: SchedlabDatabase,
  data: SplitData,
  recipes: readonly StudentRecipe[],
  dir: string,
  options: CrossValidationOptions,
  progress: Progress,
): Promise<{ paths: Map<string, string>; summary: FoldSummary["students"]; failures: Map<string, unknown> }> {
  const paths = new Map<string, string>();
  const summary: { recipe: string; path: string; reused: boolean }[] = [];
  const failures = new Map<string, unknown>();
  for (const recipe of recipes) {
    const out = join(dir, recipe.name);
    const reused = options.force !== true && existsSync(join(out, "card.json"));
    if (!reused) {
      try {
        await trainFromDatabase(db, {
          ...options.student,
          ...recipeTrainOptions(recipe),
          objective: recipe.objective,
          abstraction: data.abstraction,
          data,
          out,
          onProgress: (line) => progress(`student:${recipe.name}: ${line}`, true),
        });
      } catch (error) {
        failures.set(recipe.name, error);
        continue;
      }
    }
    paths.set(recipe.name, out);
    summary.push({ recipe: recipe.name, path: out, reused });
  }
  return { paths, summary, failures };
}

/** What one fold leaves for the pooled scoring and the report. */
interface FoldResult {
  readonly columns: FoldColumns;
  readonly summary: FoldSummary;
  readonly failures: readonly PredictorFailure[];
  readonly majority: { readonly majority: EventType; readonly trainingSamples: number };
}

/** One fold: its split loaded, its students trained, every predictor fitted and queried, the answers reduced to columns. */
async function crossValidateFold(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  options: CrossValidationOptions,
  job: {
    readonly candidates: readonly SplitProgram[];
    readonly families: readonly string[];
    readonly fold: number;
    readonly k: number;
    readonly recipes: readonly StudentRecipe[];
    readonly dir: string;
    readonly progress: (message: string, transient?: boolean) => void;
  },
): Promise<FoldResult> {
  const { candidates, families, fold, k, recipes, dir, progress } = job;
  const runs = options.runs ?? "plain";
  const inFold = new Set(families);
  const test = candidates.filter((p) => inFold.has(p.family)).map((p) => p.name);
  const data = loadSplitData(db, { abstraction, holdout: foldSplit(candidates, test, fold, k), runs });
  progress(
    `fold ${fold}/${k}: ${families.length} test families (${data.test.programs.length} ` +
      `programs, ${data.test.samples.length} samples); ${data.fit.programs.length} ` +
      `fit, ${data.validation.programs.length} validation programs`,
  );
  // The students see the test fold's programs (their static features go into the adapter) but
  // not its states: CV scores the test fold itself, so a fold student's card has no holdout
  // metrics, and its training spares the test states' feature rows (a third of the corpus).
  const trainingData = { ...data, test: { ...data.test, states: [], samples: [], runs: new Map() } };
  const students = await trainFoldStudents(db, trainingData, recipes, dir, options, (m, t) =>
    progress(`fold ${fold}: ${m}`, t),
  );
  const trainingSamples = samplesWithPrefixes(data.fit);
  const majority =
    EVENT_TYPES[
      majorityLabel(
        trainingSamples.map((s) => EVENT_TYPES.indexOf(s.next)),
        EVENT_TYPES.length,
      )
    ]!;
  const majorityOfFold = { majority, trainingSamples: trainingSamples.length };
  const context: PredictorContext = {
    ...options.predictorContext,
    // student:RECIPE means this fold's student of that recipe, whatever directory the caller mapped it to.
    studentDir: (recipe) => {
      const path = students.paths.get(recipe);
      if (path === undefined)
        throw (
          students.failures.get(recipe) ??
          new UsageError(`no fold student for recipe ${recipe}`, "Name a recipe such as student:kl.")
        );
      return path;
    },
    training: { samples: trainingSamples, states: data.fit.states },
    validation: data.validation.states,
    predictStates: cachedStatePredictions(db),
  };
  const outputs: ProbabilityColumn[] = [];
  const failures: PredictorFailure[] = [];
  const thresholds: Record<string, number> = {};
  for (const spec of options.predictors) {
    try {
      const predictor = await createPredictor(spec, context);
      const answered = await predictWithCache(db, predictor, data.test.states, {
        onProgress: (m, t) => progress(`fold ${fold}: ${spec}: ${m}`, t),
      });
      // Kept as a column: a fold's answers cost 48 bytes a state until the folds are pooled.
      outputs.push(
        probabilityColumn(
          { name: spec, configHash: predictor.configHash, predictions: answered.predictions },
          data.test.states.length,
          fold,
        ),
      );
      try {
        // Split conformal: the sets of this fold are calibrated on its validation families, which
        // the fold's model was not fitted on (they only stopped it early and set its calibration).
        const calibration = await predictWithCache(db, predictor, data.validation.states, {
          onProgress: (m, t) => progress(`fold ${fold}: ${spec} (conformal calibration): ${m}`, t),
        });
        thresholds[spec] = conformalThresholdOfStates(data.validation.states, calibration.predictions);
      } catch (error) {
        // Without a threshold in every fold the predictor is scored without conformal sets.
        progress(
          `fold ${fold}: ${spec}: no conformal calibration: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    } catch (error) {
      failures.push(failureOf(spec, fold, error));
      progress(`fold ${fold}: ${spec} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const columns = foldColumnsOf({ fold, states: data.test.states, samples: data.test.samples, outputs, thresholds });
  const summary: FoldSummary = {
    fold,
    families,
    testPrograms: data.test.programs.length,
    testSamples: data.test.samples.length,
    trainPrograms: data.fit.programs.length,
    validationPrograms: data.validation.programs.length,
    majorityClass: majority,
    students: students.summary,
  };
  return { columns, summary, failures, majority: majorityOfFold };
}

async function crossValidateAbstraction(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  options: CrossValidationOptions,
): Promise<CrossValidatedAbstraction> {
  const started = performance.now();
  const progress = (message: string, transient = false): void =>
    options.onProgress?.(`${abstraction}: ${message}`, transient);
  const runs = options.runs ?? "plain";
  const candidates = splitCandidates(db, runs)
    .filter((p) => options.includeTestCorpora === true || !p.testOnly)
    .map((p) => ({ ...p, testOnly: false }));
  if (candidates.length === 0)
    throw new UsageError(
      "the database has no ingested programs to cross-validate",
      "Run `schedlab collect` on a corpus (e.g. go-programs/) first, or pass --db with the right file.",
    );
  const familyOf = new Map(candidates.map((p) => [p.name, p.family]));
  // Sample counts program by program: the corpus's runs are never all in memory at once.
  const everything = sideSampleCounts(
    db,
    abstraction,
    candidates.map((p) => p.name),
    runs,
  );
  const weights = familyWeightsOfCounts(everything.programs, (p) => familyOf.get(p)!);
  const totalSamples = everything.programs.reduce((sum, p) => sum + p.samples, 0);
  const assignment =
    options.foldBy === "source"
      ? foldsBySource(weights, options.foldSeed ?? 1)
      : assignFolds(weights, options.folds, options.foldSeed ?? 1);
  const cacheDir = resolve(
    options.adapters ?? "adapters",
    "cv",
    cacheKey(abstraction, options, assignment, everything.fingerprint),
  );
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(
    join(cacheDir, "folds.json"),
    `${JSON.stringify({ abstraction, runs, k: assignment.k, seed: assignment.seed, folds: assignment.folds, samples: assignment.samples }, null, 2)}\n`,
  );
  progress(
    `${weights.length} families, ${candidates.length} programs, ${totalSamples} samples ` +
      `in ${assignment.k} folds${options.foldBy === "source" ? " (one per source)" : ""} of ` +
      `${assignment.samples.join(" / ")} samples; students under ${cacheDir}`,
  );

  const recipes = studentRecipesOf(options.predictors);
  // Each fold is reduced to typed columns once predicted; its split, states and prefixes go before the next loads.
  const foldData: FoldColumns[] = [];
  const foldSummaries: FoldSummary[] = [];
  const failures: PredictorFailure[] = [];
  const majorities: { majority: EventType; trainingSamples: number }[] = [];
  for (const [i, families] of assignment.folds.entries()) {
    // A function per fold: its split, samples, predictors and answers are unreachable once it
    // returns its columns, before the next fold loads.
    const result = await crossValidateFold(db, abstraction, options, {
      candidates,
      families,
      fold: i + 1,
      k: assignment.k,
      recipes,
      dir: join(cacheDir, `fold-${i + 1}`),
      progress,
    });
    foldData.push(result.columns);
    foldSummaries.push(result.summary);
    failures.push(...result.failures);
    majorities.push(result.majority);
    // The fold's split and answers are garbage now: collected before the next fold loads its own.
    collectGarbage();
  }

  const pooled = poolFolds(foldData);
  foldData.length = 0;
  if (pooled.outputs.length === 0) {
    const first = failures[0];
    throw new SchedlabError(
      `every predictor failed in some fold${first === undefined ? "" : `; ${first.predictor}: ${first.message}`}`,
      first?.hint ?? "Check the predictor specs.",
    );
  }
  const bootstrap = { resamples: options.bootstrapResamples, seed: options.bootstrapSeed };
  const majorityClass = pooledMajorityClass(majorities) ?? "GoStart";
  progress(`scoring ${pooled.outputs.length} predictors on ${pooled.stateOf.length} pooled samples`);
  const scores = crossValidationScores(pooled, {
    abstraction,
    familyOf: (program) => familyOf.get(program) ?? program,
    majorityClass,
    folds: assignment.k,
    bootstrap,
    reference: CV_REFERENCE,
  });
  return {
    abstraction,
    assignment,
    cacheDir,
    folds: foldSummaries,
    scores,
    failures,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Cross-validates every predictor at every abstraction. The reference (ngram-ctx:4) is added
 * when not requested, so every predictor gets its paired difference against it. A predictor
 * that fails in some fold is reported in the failures and left out of the pooled scores.
 */
export async function runCrossValidation(
  db: SchedlabDatabase,
  options: CrossValidationOptions,
): Promise<CrossValidationRun> {
  if (options.predictors.length === 0)
    throw new UsageError(
      "no predictor given",
      "Pass at least one --predictor, e.g. --predictor ngram:3 --predictor student:kl.",
    );
  const duplicate = options.predictors.find((p, i) => options.predictors.indexOf(p) !== i);
  if (duplicate !== undefined)
    throw new UsageError(`predictor ${duplicate} is given twice`, "Give each --predictor once.");
  if (options.abstractions.length === 0)
    throw new UsageError("no abstraction given", "Pass --abstraction depth and/or --abstraction split.");
  studentRecipesOf(options.predictors); // refuse student paths before any loading or training
  const predictors = options.predictors.includes(CV_REFERENCE)
    ? options.predictors
    : [...options.predictors, CV_REFERENCE];
  const abstractions: CrossValidatedAbstraction[] = [];
  for (const abstraction of options.abstractions)
    abstractions.push(await crossValidateAbstraction(db, abstraction, { ...options, predictors }));
  return { folds: options.folds, foldSeed: options.foldSeed ?? 1, reference: CV_REFERENCE, abstractions };
}
