// runPipeline(): the whole of `schedlab run` as a list of named stages — collect → ingest →
// distributions → train → eval → rollout (per test set) → cv → leaks → report — each skipped when
// the input it is given hashes as at its last completion. The split is loaded once and passed
// to every stage in memory.

import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { corpusOf } from "../collect/index.js";
import { discoverPrograms, parseModuleSource, resolveSources, type ProgramSpec } from "../corpus/index.js";
import {
  loadSide,
  loadSplitData,
  resolveHoldout,
  selectPrograms,
  splitData,
  type HoldoutSplit,
  type SplitData,
  type Abstraction,
} from "../dataset/index.js";
import { SchedlabError, UsageError } from "../errors.js";
import { loadEvaluation } from "../eval/index.js";
import { openDatabase, type SchedlabDatabase } from "../store/index.js";
import { recordedTraces } from "../trace/index.js";
import { silent } from "../progress.js";
import { runStage, type StageContext } from "./stage.js";
import { collectStage } from "./stages/collect.js";
import { cvStage } from "./stages/cv.js";
import { distributionsStage } from "./stages/distributions.js";
import { adapterHash, evalStage } from "./stages/eval.js";
import { ingestStage } from "./stages/ingest.js";
import { leaksStage } from "./stages/leaks.js";
import { reportStage, type ReportedEvaluation } from "./stages/report.js";
import { rolloutStage } from "./stages/rollout.js";
import { trainStage, type TrainOutput } from "./stages/train.js";
import { parseStudentRecipe } from "../cv/index.js";
import { contentHash, ingestedDataHash } from "./store.js";
import { stratifiedSubset } from "./corpus-subset.js";
import { bestStudentOf, predictorSummaries } from "./summary.js";
import type {
  ExternalSummary,
  PipelineSettings,
  PipelineSummary,
  RunPipelineOptions,
  SectionSummary,
} from "./types.js";

/**
 * The students a pipeline run trains unless told otherwise (`run --student RECIPE`, recipes as
 * `eval --cv` names them): both KL students (one row per state, p̂ as the target), with and
 * without the tag head. On the proxy holdouts CE matched their accuracy at several times the
 * training time and with worse calibration (docs/experiments/training.md).
 */
export const PIPELINE_STUDENTS: readonly string[] = ["kl", "kl-tags"];

/**
 * Baselines evaluated beside the students: ngram:3 both as fitted and calibrated on the
 * validation families the way the students are (cal:), so neither is compared unfairly.
 */
export const PIPELINE_BASELINES = ["uniform", "majority", "ngram:3", "cal:ngram:3"] as const;

/**
 * Folds of the CV stage unless --cv says otherwise: three keeps it cheap enough for every run
 * (docs/run.md has the measured time); `schedlab eval --cv 5` is the full scoreboard.
 */
export const DEFAULT_RUN_CV_FOLDS = 3;

/** The abstractions the CV stage scores: depth and split (docs/training.md), and the run's own. */
export function crossValidatedAbstractions(abstraction: Abstraction): Abstraction[] {
  return [...new Set<Abstraction>(["depth", "split", abstraction])];
}

/** Resolves defaults; `quick` trades coverage for time (see docs/run.md for measured times). */
export function pipelineSettings(options: RunPipelineOptions): PipelineSettings {
  const quick = options.quick === true;
  const runs = options.runs ?? (quick ? 3 : 5);
  if (!Number.isInteger(runs) || runs < 1)
    throw new UsageError(`--runs must be a positive integer, got ${runs}`, "Pass e.g. --runs 5.");
  if (options.jobs !== undefined && (!Number.isInteger(options.jobs) || options.jobs < 1)) {
    throw new UsageError(`--jobs must be a positive integer, got ${options.jobs}`, "Pass e.g. --jobs 2.");
  }
  const cvFolds = options.cvFolds ?? DEFAULT_RUN_CV_FOLDS;
  if (!Number.isInteger(cvFolds) || cvFolds < 0 || cvFolds === 1)
    throw new UsageError(
      `--cv must be 0 (no cross-validation) or at least 2 folds, got ${cvFolds}`,
      "Pass e.g. --cv 3, or --cv 0 to skip the CV stage.",
    );
  const corpus = resolve(options.corpus ?? "go-programs");
  // A module of the module proxy (path@version) stays as given: collect fetches it.
  const testCorpora = [
    ...new Set((options.testCorpora ?? []).map((dir) => (parseModuleSource(dir) === null ? resolve(dir) : dir))),
  ];
  if (testCorpora.includes(corpus))
    throw new UsageError(
      `--test-corpus ${corpus} is the --corpus itself`,
      "Pass a different directory as the test corpus: its programs are never trained on.",
    );
  return {
    corpus,
    testCorpora,
    db: resolve(options.db ?? "schedlab.db"),
    out: resolve(options.out ?? "report"),
    adapters: resolve(options.adapters ?? "adapters"),
    traces: resolve(options.traces ?? "traces"),
    quick,
    runs,
    timeoutMs: options.timeoutMs ?? (quick ? 2_000 : 5_000),
    jobs: options.jobs,
    abstraction: options.abstraction ?? "depth",
    students: [...new Set(options.students ?? PIPELINE_STUDENTS)].map(parseStudentRecipe),
    studentModel: quick ? "logreg" : "mlp",
    studentEpochs: quick ? 20 : 40,
    bootstrapResamples: quick ? 200 : 1000,
    cvFolds,
    rollout: quick ? { steps: 10, samples: 5, prefixes: 10 } : { steps: 20, samples: 10, prefixes: 30 },
    force: options.force === true,
  };
}

/** The programs of a test corpus: a directory's, or a fetched module's named under module@version as collect names them. */
async function sourcePrograms(arg: string): Promise<ProgramSpec[]> {
  const sources = await resolveSources([arg]);
  return (await discoverPrograms(sources.paths, { namePrefix: (root) => sources.modules.get(root)?.label })).programs;
}

/** Program names and source hashes: what collect's input hash covers. */
const programList = (programs: readonly ProgramSpec[]): (readonly [string, string])[] =>
  programs.map((p) => [p.name, p.sourceHash] as const);

/**
 * Runs the pipeline on `options.corpus` (and its test corpora) and returns its summary.
 * Resumable: collect skips recorded runs, ingest skips decoded traces, and every later stage
 * is skipped when the hash of its input matches its last completion in pipeline_stages. One
 * bad program or one failing student never stops the pipeline; the report says what is missing.
 */
export async function runPipeline(options: RunPipelineOptions = {}): Promise<PipelineSummary> {
  const settings = pipelineSettings(options);
  for (const dir of [settings.corpus, ...settings.testCorpora]) {
    if (!existsSync(dir) && parseModuleSource(dir) === null) {
      throw new UsageError(
        `${dir === settings.corpus ? "corpus" : "test corpus"} directory ${dir} does not exist`,
        dir === settings.corpus
          ? "Pass --corpus DIR with Go programs (default go-programs, run from the schedlab checkout)."
          : "Pass --test-corpus DIR with a directory of Go programs (test packages or main packages).",
      );
    }
  }
  // Discovery decides what to collect; it is cheap next to collection. --quick collects the
  // corpus root with a selection, so its programs keep the names a full run gives them.
  const discovery = await discoverPrograms([settings.corpus]);
  const chosen = settings.quick ? stratifiedSubset(discovery.programs) : discovery.programs;
  const testDiscoveries = await Promise.all(
    settings.testCorpora.map(async (root) => ({
      root,
      programs: programList(await sourcePrograms(root)),
    })),
  );

  const db = openDatabase(settings.db);
  const context: StageContext = {
    db,
    settings,
    progress: options.onProgress ?? silent,
    started: performance.now(),
    timings: [],
    warnings: [],
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onStage === undefined ? {} : { onStage: options.onStage }),
  };
  try {
    const collected = (await runStage(context, collectStage({ jobs: settings.jobs, signal: options.signal }), {
      corpus: settings.corpus,
      selection: settings.quick ? chosen.map((p) => p.name) : null,
      programs: programList(chosen),
      testCorpora: testDiscoveries,
      runs: settings.runs,
      timeoutMs: settings.timeoutMs,
      traces: settings.traces,
      db: settings.db,
    }))!;
    await runStage(context, ingestStage, { runs: recordedTraces(db), jobs: settings.jobs });

    const data = ingestedDataHash(db);
    const programs = selectPrograms(db).map((p) => p.name);
    if (programs.length < 2) {
      throw new SchedlabError(
        `only ${programs.length} program(s) have decoded runs in ${settings.db}; the pipeline needs at least 2 (one to train on, one to hold out)`,
        "Point --corpus at a directory with more Go programs, or check `schedlab collect` output for build errors.",
      );
    }
    await runStage(context, distributionsStage, { data, abstraction: settings.abstraction });

    // Each section loads its split in a function of its own, so no split outlives its section
    // (the CV stage after them loads its folds one at a time).
    const main = await inDistributionSection(context);
    const externals = await externalSections(context);

    const crossValidation =
      settings.cvFolds === 0
        ? null
        : await runStage(context, cvStage, {
            data,
            folds: settings.cvFolds,
            abstractions: crossValidatedAbstractions(settings.abstraction),
            predictors: [...PIPELINE_BASELINES, ...settings.students.map((s) => `student:${s.name}`)],
            model: settings.studentModel,
            epochs: settings.studentEpochs,
            resamples: settings.bootstrapResamples,
            adapters: settings.adapters,
          });

    const leaks = (await runStage(context, leaksStage, { data }))?.summary ?? null;
    const shownNames = Object.fromEntries(
      [main, ...externals].flatMap((s) => s.summary.predictors.map((p) => [p.spec, p.name])),
    );
    const overviewOf = (section: SectionSummary, title: string) => ({
      title,
      holdout: section.holdout,
      testPrograms: section.testPrograms,
      families: section.families,
      evalRunId: section.evalRunId,
      best: section.best?.name ?? null,
      predictors: section.predictors,
    });
    const reported = (await runStage(context, reportStage, {
      overview: {
        programs: programs.length,
        abstraction: settings.abstraction,
        evaluations: [
          overviewOf(main.summary, "in-distribution holdout"),
          ...externals.map((e) => overviewOf(e.summary, `test corpus ${e.summary.corpus.label}`)),
        ],
        crossValidation,
        leaks,
        rollout: main.summary.rollout,
        settings,
        collected,
        warnings: context.warnings,
      },
      evaluations: [main.reported, ...externals.map((e) => e.reported)],
      crossValidation,
      shownNames,
      leaks,
      out: settings.out,
      title: "schedlab run",
      source:
        `${settings.db}, eval run ${main.summary.evalRunId}, corpus ${settings.corpus}` +
        `${settings.quick ? " (--quick subset)" : ""}` +
        `${settings.testCorpora.length > 0 ? `, test corpora ${settings.testCorpora.join(", ")}` : ""}`,
    }))!;
    return {
      ...main.summary,
      reportPath: reported.reportPath,
      db: settings.db,
      abstraction: settings.abstraction,
      programs: programs.length,
      external: externals.map((e) => e.summary),
      leaks,
      crossValidation,
      stages: context.timings,
      warnings: context.warnings,
    };
  } finally {
    db.close();
  }
}

/** The in-distribution holdout's section, its split loaded here and dropped on return. */
async function inDistributionSection(
  context: StageContext,
): Promise<{ summary: SectionSummary; reported: ReportedEvaluation }> {
  const { db, settings } = context;
  const data = loadSplitData(db, { abstraction: settings.abstraction, holdout: pipelineHoldout(db) });
  return evaluatedSection(context, "", data, adapterDirs(settings, ""));
}

/** One section per test corpus, their splits loaded here and dropped on return. */
async function externalSections(
  context: StageContext,
): Promise<{ summary: ExternalSummary; reported: ReportedEvaluation }[]> {
  const externals: { summary: ExternalSummary; reported: ReportedEvaluation }[] = [];
  const externalData = externalSplits(context.db, context.settings);
  if (externalData.length === 0) return externals;
  const trained = await trainedStudents(
    context,
    "train:external",
    externalData[0]!.data,
    adapterDirs(context.settings, "external-"),
  );
  for (const { label, root, data: split } of externalData) {
    const section = await evaluatedSection(context, label, split, null, trained);
    externals.push({ summary: { ...section.summary, corpus: { label, root } }, reported: section.reported });
  }
  return externals;
}

/** Adapter directories of the pipeline's students, `prefix` telling apart the external students. */
function adapterDirs(settings: PipelineSettings, prefix: string): string[] {
  return settings.students.map((s) => join(settings.adapters, `${settings.quick ? "quick-" : ""}${prefix}${s.name}`));
}

async function trainedStudents(
  context: StageContext,
  name: string,
  data: SplitData,
  dirs: readonly string[],
): Promise<TrainOutput> {
  const input = {
    data,
    students: context.settings.students,
    model: context.settings.studentModel,
    epochs: context.settings.studentEpochs,
    adapterDirs: dirs,
  };
  return (await runStage(context, trainStage(name), input))!;
}

/**
 * Train (unless `trained` is given), evaluate and roll out on one split: the in-distribution
 * holdout (label "") or one test corpus (its label). The headline and rollout use the student
 * chosen on the validation families.
 */
async function evaluatedSection(
  context: StageContext,
  label: string,
  data: SplitData,
  dirs: readonly string[] | null,
  trained?: TrainOutput,
): Promise<{ summary: SectionSummary; reported: ReportedEvaluation }> {
  const suffix = label === "" ? "" : `:${label}`;
  const students = trained ?? (await trainedStudents(context, "train", data, dirs ?? []));
  const studentSpecs = students.students.map((s) => `student:${s.path}`);
  const evaluated = (await runStage(context, evalStage(`eval${suffix}`), {
    data,
    specs: [...PIPELINE_BASELINES, ...studentSpecs],
    adapters: students.students.map((s) => adapterHash(s.path)),
    resamples: context.settings.bootstrapResamples,
  }))!;
  const predictors = predictorSummaries(loadEvaluation(context.db, evaluated.evalRunId).predictors, students.students);
  const best = bestStudentOf(students.students);
  const rolloutSpec = best?.spec ?? "ngram:3";
  const rolled = await runStage(context, rolloutStage(`rollout${suffix}`), {
    data,
    spec: rolloutSpec,
    shownAs: best?.name ?? rolloutSpec,
    adapter: best === null ? null : adapterHash(best.spec.slice("student:".length)),
    ...context.settings.rollout,
  });
  const split = data.split;
  return {
    summary: {
      holdout: split.spec,
      description: split.description,
      testPrograms: split.test,
      families: split.families,
      evalRunId: evaluated.evalRunId,
      predictors,
      best,
      rollout: rolled?.summary ?? null,
    },
    reported: {
      scope:
        label === ""
          ? { id: "", title: "" }
          : { id: `corpus-${label.replace(/[^A-Za-z0-9-]+/g, "-")}`, title: ` — test corpus ${label}` },
      evalRunId: evaluated.evalRunId,
      rolloutRunIds: rolled?.rolloutRunIds ?? [],
      rollout: rolled?.summary ?? null,
    },
  };
}

/**
 * The split of each test corpus: `corpus:ROOT`, i.e. trained on every program that is not from
 * a test corpus (the same for every corpus, so its fit and validation sides are loaded once)
 * and tested on the corpus. `schedlab eval --holdout corpus:ROOT` resolves to the same split.
 */
function externalSplits(
  db: SchedlabDatabase,
  settings: PipelineSettings,
): { label: string; root: string; data: SplitData }[] {
  if (settings.testCorpora.length === 0) return [];
  const splits = settings.testCorpora.map((root) => ({
    root,
    label: corpusOf(db, root)?.label ?? basename(root),
    split: resolveHoldout(db, `corpus:${root}`),
  }));
  const first = splits[0]!.split;
  const validation = new Set(first.validation);
  const fit = loadSide(
    db,
    settings.abstraction,
    first.train.filter((p) => !validation.has(p)),
  );
  const validationSide = loadSide(db, settings.abstraction, first.validation);
  return splits.map(({ root, label, split }) => ({
    root,
    label,
    data: splitData(settings.abstraction, split, fit, validationSide, loadSide(db, settings.abstraction, split.test)),
  }));
}

/**
 * The holdout spec of the pipeline: the default family split, or — when the corpus is too
 * small for it to hold anything out — the family of the first program by name hash.
 */
export function pipelineHoldout(db: SchedlabDatabase): string | HoldoutSplit {
  const split = resolveHoldout(db, undefined);
  if (split.test.length > 0) return split;
  const names = [...split.train].sort((a, b) => (contentHash(a) < contentHash(b) ? -1 : 1));
  return `list:${names[0]}`;
}

/** The adapter name of a `student:PATH` spec. */
export function studentName(spec: string): string {
  return basename(spec.slice("student:".length));
}
