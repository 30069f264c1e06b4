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
  cappedLine,
  DEFAULT_MAX_SAMPLES_PER_PROGRAM,
  isPooled,
  loadSide,
  programSides,
  resolveHoldout,
  resolveTrainOn,
  sideSampleCounts,
  splitCandidates,
  splitData,
  splitPrograms,
  storedSamplesWithPrefixes,
  type Abstraction,
  type HoldoutSplit,
  type RunSelection,
  type Sample,
  type SampleCapReport,
  type SplitData,
  type SplitProgram,
  type SplitSide,
  type State,
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
  joinFoldColumns,
  poolFolds,
  pooledMajorityClass,
  probabilityColumn,
  type CrossValidationScores,
  type FamilyWeight,
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
  type Predictor,
  type PredictorContext,
  type PredictorSettings,
} from "../predict/index.js";
import { collectGarbage, collectorEvery } from "../memory.js";
import { SchedlabError, UsageError } from "../errors.js";
import type { SchedlabDatabase } from "../store/index.js";
import { EVENT_TYPES, plural, type EventType } from "../core/index.js";
import { DEFAULT_TRAIN_OPTIONS, trainFromDatabase, type TrainStudentOptions } from "../train/index.js";
import type { Progress } from "../progress.js";
import { recipeTrainOptions, studentRecipesOf, type StudentRecipe } from "./recipes.js";
import { topLabel } from "../metrics/index.js";

/**
 * A fold collects garbage after loading this many samples' programs (docs/experiments/training.md,
 * "Memory of cross-validation"): the peak then follows the largest program, not V8's heuristics.
 */
const COLLECT_EVERY_SAMPLES = 100_000;

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
  /**
   * Samples one program may put into a fold's sides (default DEFAULT_MAX_SAMPLES_PER_PROGRAM):
   * above it the whole-run positions 0, s, 2s … of each of its runs, the same states for the
   * training and the scoring of every predictor (docs/dataset.md, "Bounded per program").
   */
  readonly maxSamplesPerProgram?: number;
  /** Put the test corpora's families into folds too (default: leave them out entirely; not used with `holdout`). */
  readonly includeTestCorpora?: boolean;
  /**
   * Train only on the programs this spec selects (--train-on; the forms of a holdout spec but
   * "default"): without `holdout` the folds are dealt from them alone — CV within that training set.
   */
  readonly trainOn?: string;
  /**
   * One fold instead of K: the programs this holdout spec selects (and their families) are the
   * test fold, every other program (of `trainOn`, when given) trains — train on one set, score
   * another with the CV scoreboard. `folds` and `foldBy` are not used.
   */
  readonly holdout?: string;
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
  /** The sample cap and the cross-validated programs it capped (each is in one fold's test side, and trains in the others). */
  readonly sampleCap: SampleCapReport;
  readonly scores: CrossValidationScores;
  readonly failures: readonly PredictorFailure[];
  readonly seconds: number;
}

export interface CrossValidationRun {
  readonly folds: number;
  readonly foldSeed: number;
  readonly reference: string;
  /** The --train-on spec and its words, when training was restricted. */
  readonly trainOn?: { readonly spec: string; readonly description: string };
  /** The holdout that was the one test fold, and its words (absent: K-fold CV). */
  readonly holdout?: { readonly spec: string; readonly description: string };
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
        // The programs trained on: a --train-on restriction changes them without changing the folds.
        ...(options.trainOn === undefined ? {} : { trainOn: options.trainOn }),
        // The defaults too: a student recipe means the defaults of the schedlab that trained it.
        student: { ...DEFAULT_TRAIN_OPTIONS, ...options.student },
        data: dataFingerprint,
      }),
    )
    .digest("hex")
    .slice(0, 16);
}

/**
 * Trains the fold's students that are not cached yet. `load` gives their training data; it is
 * called only when one of them is trained, so a fold whose students are all cached never loads it.
 */
async function trainFoldStudents(
  db: SchedlabDatabase,
  load: () => SplitData,
  recipes: readonly StudentRecipe[],
  dir: string,
  options: CrossValidationOptions,
  progress: Progress,
): Promise<{ paths: Map<string, string>; summary: FoldSummary["students"]; failures: Map<string, unknown> }> {
  const paths = new Map<string, string>();
  const summary: { recipe: string; path: string; reused: boolean }[] = [];
  const failures = new Map<string, unknown>();
  let data: SplitData | undefined;
  for (const recipe of recipes) {
    const out = join(dir, recipe.name);
    const reused = options.force !== true && existsSync(join(out, "card.json"));
    if (!reused) {
      data ??= load();
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

/**
 * A side of a split in parts whose states never span two, each loaded when reached: program by
 * program (at most one program's runs in memory), or whole when the abstraction pools programs.
 */
function* sideParts(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  names: readonly string[],
  runs: RunSelection,
  cap: number,
): Generator<SplitSide> {
  if (isPooled(abstraction)) yield loadSide(db, abstraction, names, runs, cap);
  else yield* programSides(db, abstraction, names, runs, cap);
}

/**
 * One fold: its students trained (unless cached), every predictor fitted and queried, the answers
 * reduced to columns. The fold's runs are never all in memory: the sides' sizes and the training
 * majority class are counted in SQLite, the fit side's samples are read run by run whenever a
 * fitted predictor reads them, the validation side is kept as its states (what conformal sets
 * and cal: are calibrated on), and the test side is loaded, predicted and reduced to columns
 * program by program. Only training a student loads its fit and validation sides whole, for the
 * time it trains.
 */
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
  const cap = options.maxSamplesPerProgram ?? DEFAULT_MAX_SAMPLES_PER_PROGRAM;
  const inFold = new Set(families);
  const split = foldSplit(
    candidates,
    candidates.filter((p) => inFold.has(p.family)).map((p) => p.name),
    fold,
    k,
  );
  const inValidation = new Set(split.validation);
  const fit = split.train.filter((p) => !inValidation.has(p));
  // The fit and test sides' programs, samples and fingerprints counted in SQLite, without their records.
  const fitCounts = sideSampleCounts(db, abstraction, fit, runs, cap);
  const test = sideSampleCounts(db, abstraction, split.test, runs, cap);
  const testSamples = test.programs.reduce((sum, p) => sum + p.samples, 0);
  const fitPrograms = fitCounts.programs.length;
  // The sides' programs are loaded and dropped one by one: their dead runs collected every so many samples.
  const collect = collectorEvery(COLLECT_EVERY_SAMPLES);
  const validation: State[] = [];
  let validationPrograms = 0;
  for (const side of sideParts(db, abstraction, split.validation, runs, cap)) {
    validationPrograms += side.programs.length;
    for (const state of side.states) validation.push(state);
    collect(side.samples.length);
  }
  progress(
    `fold ${fold}/${k}: ${families.length} test families (${test.programs.length} ` +
      `programs, ${testSamples} samples); ${fitPrograms} ` +
      `fit, ${validationPrograms} validation programs`,
  );
  // The students see the test fold's programs (their static features go into the adapter) but
  // not its states: CV scores the test fold itself, so a fold student's card has no holdout
  // metrics, and its training spares the test states' feature rows (a third of the corpus).
  const trainingData = (): SplitData =>
    splitData(
      abstraction,
      split,
      loadSide(db, abstraction, fit, runs, cap),
      loadSide(db, abstraction, split.validation, runs, cap),
      {
        fingerprint: test.fingerprint,
        programs: test.programs.map((p) => p.name),
        states: [],
        samples: [],
        runs: new Map(),
        cap,
        capped: test.capped,
      },
    );
  const students = await trainFoldStudents(db, trainingData, recipes, dir, options, (m, t) =>
    progress(`fold ${fold}: ${m}`, t),
  );
  // Re-read from SQLite run by run on every pass: the fit side is half the corpus.
  const trainingSamples: Iterable<Sample> = {
    *[Symbol.iterator]() {
      for (const sample of storedSamplesWithPrefixes(db, abstraction, fit, runs, cap)) {
        yield sample;
        collect(1);
      }
    },
  };
  const labels = EVENT_TYPES.map((_, e) => fitCounts.programs.reduce((sum, p) => sum + p.events[e]!, 0));
  // majorityLabel's rule: the most frequent, the lowest index on ties.
  const majority = EVENT_TYPES[topLabel(labels)]!;
  const majorityOfFold = { majority, trainingSamples: labels.reduce((sum, n) => sum + n, 0) };
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
    training: { samples: trainingSamples },
    validation,
    predictStates: cachedStatePredictions(db),
  };
  const failed = new Map<string, PredictorFailure>();
  const fail = (spec: string, error: unknown): void => {
    failed.set(spec, failureOf(spec, fold, error));
    progress(`fold ${fold}: ${spec} failed: ${error instanceof Error ? error.message : String(error)}`);
  };
  const predictors: { readonly spec: string; readonly predictor: Predictor }[] = [];
  for (const spec of options.predictors) {
    try {
      predictors.push({ spec, predictor: await createPredictor(spec, context) });
    } catch (error) {
      fail(spec, error);
    }
  }
  // Kept as columns: a test program's answers cost 48 bytes a state once its runs are gone.
  const parts: FoldColumns[] = [];
  for (const side of sideParts(db, abstraction, split.test, runs, cap)) {
    const outputs: ProbabilityColumn[] = [];
    for (const { spec, predictor } of predictors) {
      if (failed.has(spec)) continue;
      try {
        const answered = await predictWithCache(db, predictor, side.states, {
          onProgress: (m, t) =>
            progress(`fold ${fold}: ${spec}: ${side.programs.length === 1 ? `${side.programs[0]}: ` : ""}${m}`, t),
        });
        outputs.push(
          probabilityColumn(
            { name: spec, configHash: predictor.configHash, predictions: answered.predictions },
            side.states.length,
            fold,
          ),
        );
      } catch (error) {
        fail(spec, error);
      }
    }
    parts.push(foldColumnsOf({ fold, states: side.states, samples: side.samples, outputs }));
    collect(side.samples.length);
  }
  const answered = predictors.filter((p) => !failed.has(p.spec));
  const thresholds: Record<string, number> = {};
  for (const { spec, predictor } of answered) {
    try {
      // Split conformal: the sets of this fold are calibrated on its validation families, which
      // the fold's model was not fitted on (they only stopped it early and set its calibration).
      const calibration = await predictWithCache(db, predictor, validation, {
        onProgress: (m, t) => progress(`fold ${fold}: ${spec} (conformal calibration): ${m}`, t),
      });
      thresholds[spec] = conformalThresholdOfStates(validation, calibration.predictions);
    } catch (error) {
      // Without a threshold in every fold the predictor is scored without conformal sets.
      progress(
        `fold ${fold}: ${spec}: no conformal calibration: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const columns = joinFoldColumns(
    fold,
    parts,
    answered.map((p) => ({ name: p.spec, configHash: p.predictor.configHash })),
    thresholds,
  );
  const summary: FoldSummary = {
    fold,
    families,
    testPrograms: test.programs.length,
    testSamples,
    trainPrograms: fitPrograms,
    validationPrograms,
    majorityClass: majority,
    students: students.summary,
  };
  const failures = options.predictors.flatMap((spec) => failed.get(spec) ?? []);
  return { columns, summary, failures, majority: majorityOfFold };
}

/**
 * The programs a CV deals into folds, and with a holdout the families of its one test fold.
 * K-fold: every ingested program (test corpora only when asked), restricted to `trainOn`'s;
 * with a holdout: the holdout's test programs and the programs its split trains on (restricted
 * to `trainOn`'s), so the one fold's split trains on exactly those. Every program is marked
 * trainable here: which side it is on is the fold's business.
 */
function crossValidatedPrograms(
  db: SchedlabDatabase,
  options: CrossValidationOptions,
): { candidates: SplitProgram[]; testFamilies?: readonly string[] } {
  const runs = options.runs ?? "plain";
  const all = splitCandidates(db, runs);
  if (options.holdout !== undefined) {
    const split = resolveHoldout(db, options.holdout, runs, options.trainOn);
    const kept = new Set([...split.train, ...split.test]);
    return {
      candidates: all.filter((p) => kept.has(p.name)).map((p) => ({ ...p, testOnly: false })),
      testFamilies: [...new Set(split.test.map((name) => split.familyOf[name]!))].sort(),
    };
  }
  const trainOn = options.trainOn === undefined ? undefined : resolveTrainOn(db, options.trainOn, runs).names;
  return {
    candidates: all
      .filter((p) => options.includeTestCorpora === true || !p.testOnly)
      .filter((p) => trainOn?.has(p.name) ?? true)
      .map((p) => ({ ...p, testOnly: false })),
  };
}

/** The one fold of a holdout: its test families, with their samples. */
function holdoutFold(weights: readonly FamilyWeight[], families: readonly string[], seed: number): FoldAssignment {
  const inFold = new Set(families);
  // Families without samples at this abstraction put nothing in the fold (as assignFolds leaves them out).
  const held = weights.filter((w) => inFold.has(w.family));
  if (held.length === 0)
    throw new UsageError(
      "the holdout's test programs have no samples at this abstraction",
      "Collect (and ingest) them first, or choose another --holdout.",
    );
  return {
    k: 1,
    seed,
    folds: [held.map((w) => w.family).sort()],
    samples: [held.reduce((sum, w) => sum + w.samples, 0)],
  };
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
  const { candidates, testFamilies } = crossValidatedPrograms(db, options);
  if (candidates.length === 0)
    throw new UsageError(
      "the database has no ingested programs to cross-validate",
      "Run `schedlab collect` on a corpus (e.g. go-programs/) first, or pass --db with the right file.",
    );
  const familyOf = new Map(candidates.map((p) => [p.name, p.family]));
  // Sample counts program by program: the corpus's runs are never all in memory at once.
  const cap = options.maxSamplesPerProgram ?? DEFAULT_MAX_SAMPLES_PER_PROGRAM;
  const everything = sideSampleCounts(
    db,
    abstraction,
    candidates.map((p) => p.name),
    runs,
    cap,
  );
  const sampleCap: SampleCapReport = { maxSamplesPerProgram: cap, capped: everything.capped };
  const weights = familyWeightsOfCounts(everything.programs, (p) => familyOf.get(p)!);
  const totalSamples = everything.programs.reduce((sum, p) => sum + p.samples, 0);
  const assignment =
    testFamilies !== undefined
      ? holdoutFold(weights, testFamilies, options.foldSeed ?? 1)
      : options.foldBy === "source"
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
  const grouping =
    testFamilies !== undefined
      ? ` (the holdout ${options.holdout})`
      : options.foldBy === "source"
        ? " (one per source)"
        : "";
  progress(
    `${weights.length} families, ${candidates.length} programs, ${totalSamples} samples` +
      `${options.trainOn === undefined ? "" : ` of ${options.trainOn}`} in ${plural(assignment.k, "fold")}${grouping} of ` +
      `${assignment.samples.join(" / ")} samples; students under ${cacheDir}`,
  );
  progress(cappedLine(sampleCap));

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
  // The folds' columns, copied into the pooled ones, are freed before the scoring allocates its own.
  foldData.length = 0;
  collectGarbage();
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
    sampleCap,
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
  const words = (spec: string, description: string) => ({ spec, description });
  return {
    folds: options.holdout === undefined ? options.folds : 1,
    foldSeed: options.foldSeed ?? 1,
    reference: CV_REFERENCE,
    ...(options.trainOn === undefined
      ? {}
      : { trainOn: words(options.trainOn, resolveTrainOn(db, options.trainOn, options.runs).description) }),
    ...(options.holdout === undefined
      ? {}
      : { holdout: words(options.holdout, resolveHoldout(db, options.holdout, options.runs).description) }),
    abstractions,
  };
}
