// runPipeline(): the whole of `schedlab run` — collect → ingest → distributions → train →
// eval → leaks → rollout → report — with each stage skipped when its input hash is unchanged.

import { existsSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { collect, discoverPrograms } from "../collect/index.js";
import { refreshDataset, resolveHoldout, selectPrograms } from "../dataset/index.js";
import { SchedlabError, UsageError } from "../errors.js";
import { runEvaluation } from "../eval/run.js";
import { listEvaluations, loadEvaluation, type StoredEvaluation } from "../eval/store.js";
import { analyseLeaks, scoreLeaks } from "../leaks/index.js";
import { evaluationHistorySection, evaluationSections, writeReport } from "../report/index.js";
import { leakSection, overviewSection, rolloutSection } from "../report/sections/pipeline.js";
import { listRolloutRuns, runRollouts, saveRolloutReport, type RolloutReport } from "../rollout/index.js";
import { openDatabase, type SchedlabDatabase } from "../store/index.js";
import { ingestRuns } from "../trace/index.js";
import { trainFromDatabase } from "../train/from-database.js";
import { contentHash, ingestedDataHash, readStage, writeStage } from "./stages.js";
import { stratifiedSubset } from "./corpus-subset.js";
import { leakSummaryOf, predictorSummaries, bestStudentOf } from "./summary.js";
import type {
  LeakSummary, PipelineProgress, PipelineSettings, PipelineStage, PipelineSummary, RolloutSummary, RunPipelineOptions, StageTiming,
} from "./types.js";
import { SCHEDLAB_VERSION } from "../version.js";

/** The students trained by every pipeline run: name, objective and the tag head. */
export const PIPELINE_STUDENTS = [
  { name: "ce", objective: "ce", tags: false },
  { name: "kl", objective: "kl", tags: false },
  { name: "kl-tags", objective: "kl", tags: true },
] as const;

/** Baselines evaluated beside the students. */
export const PIPELINE_BASELINES = ["uniform", "majority", "ngram:3"] as const;

/** Resolves defaults; `quick` trades coverage for time (see docs/run.md for measured times). */
export function pipelineSettings(options: RunPipelineOptions): PipelineSettings {
  const quick = options.quick === true;
  const runs = options.runs ?? (quick ? 3 : 5);
  if (!Number.isInteger(runs) || runs < 1) throw new UsageError(`--runs must be a positive integer, got ${runs}`, "Pass e.g. --runs 5.");
  if (options.jobs !== undefined && (!Number.isInteger(options.jobs) || options.jobs < 1)) {
    throw new UsageError(`--jobs must be a positive integer, got ${options.jobs}`, "Pass e.g. --jobs 2.");
  }
  return {
    corpus: resolve(options.corpus ?? "go-programs"),
    db: resolve(options.db ?? "schedlab.db"),
    out: resolve(options.out ?? "report"),
    adapters: resolve(options.adapters ?? "adapters"),
    traces: resolve(options.traces ?? "traces"),
    quick,
    runs,
    timeoutMs: options.timeoutMs ?? (quick ? 2_000 : 5_000),
    jobs: options.jobs,
    abstraction: options.abstraction ?? "depth",
    studentModel: quick ? "logreg" : "mlp",
    studentEpochs: quick ? 20 : 40,
    bootstrapResamples: quick ? 200 : 1000,
    rollout: quick ? { steps: 10, samples: 5, prefixes: 10 } : { steps: 10, samples: 10, prefixes: 30 },
    force: options.force === true,
  };
}

interface StageContext {
  readonly db: SchedlabDatabase;
  readonly settings: PipelineSettings;
  readonly progress: (event: PipelineProgress) => void;
  readonly timings: StageTiming[];
}

/**
 * Runs `work` unless the stage last completed with the same input hash (and `stillValid`
 * accepts its stored output); records the hash and output on success.
 */
async function stage<T>(
  context: StageContext,
  name: PipelineStage,
  inputs: unknown,
  work: (say: (message: string, transient?: boolean) => void) => Promise<{ output: T; note: string }>,
  stillValid: (output: T) => boolean = () => true,
): Promise<T> {
  // The version is an input too: a newer schedlab recomputes what an older one stored.
  const inputHash = contentHash({ name, version: SCHEDLAB_VERSION, inputs });
  const previous = readStage(context.db, name);
  if (!context.settings.force && previous !== null && previous.inputHash === inputHash && stillValid(previous.output as T)) {
    const note = "inputs unchanged";
    context.progress({ kind: "skipped", stage: name, note });
    context.timings.push({ stage: name, status: "skipped", elapsedMs: 0, note });
    return previous.output as T;
  }
  context.progress({ kind: "start", stage: name });
  const started = performance.now();
  try {
    const { output, note } = await work((message, transient = false) => context.progress({ kind: "message", stage: name, message, transient }));
    const elapsedMs = performance.now() - started;
    writeStage(context.db, name, { inputHash, output, elapsedMs });
    context.progress({ kind: "done", stage: name, elapsedMs, note });
    context.timings.push({ stage: name, status: "done", elapsedMs, note });
    return output;
  } catch (error) {
    context.timings.push({ stage: name, status: "failed", elapsedMs: performance.now() - started, note: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

/** Hash of an adapter's saved files, so a retrained student invalidates eval and rollout. */
function adapterHash(dir: string): string {
  const card = join(dir, "card.json");
  return existsSync(card) ? contentHash(readFileSync(card, "utf8")) : "missing";
}

interface CollectOutput { readonly programs: number; readonly executed: number; readonly skipped: number; readonly buildErrors: number }
interface StudentOutput { readonly name: string; readonly path: string }
interface TrainOutput { readonly students: readonly StudentOutput[]; readonly failures: readonly string[] }
interface EvalOutput { readonly evalRunId: number; readonly failures: readonly string[] }
interface LeaksOutput { readonly summary: LeakSummary }
interface RolloutOutput { readonly rolloutRunId: number; readonly summary: RolloutSummary }
interface ReportOutput { readonly reportPath: string }

/**
 * Runs the pipeline on `options.corpus` and returns its summary. Resumable: collect skips
 * recorded runs, ingest skips decoded traces, and every later stage is skipped when the
 * hash of its inputs matches its last completion in pipeline_stages. One bad program or
 * one failing student never stops the pipeline; the report says what is missing.
 */
export async function runPipeline(options: RunPipelineOptions = {}): Promise<PipelineSummary> {
  const settings = pipelineSettings(options);
  if (!existsSync(settings.corpus)) {
    throw new UsageError(`corpus directory ${settings.corpus} does not exist`, "Pass --corpus DIR with Go programs (default go-programs, run from the schedlab checkout).");
  }
  const progress = options.onProgress ?? (() => undefined);
  const warnings: string[] = [];

  // Discovery decides what to collect; it is cheap next to collection and needs no database.
  // --quick collects the corpus root with a selection, so its programs keep the names a
  // full run gives them (e.g. "kernels/wgmisuse/addcount") and the two can share a database.
  const discovery = await discoverPrograms([settings.corpus]);
  const chosen = settings.quick ? stratifiedSubset(discovery.programs) : discovery.programs;
  const selection = settings.quick ? chosen.map((p) => p.name) : undefined;

  const db = openDatabase(settings.db);
  const timings: StageTiming[] = [];
  const context: StageContext = { db, settings, progress, timings };
  try {
    const collected = await stage<CollectOutput>(
      context,
      "collect",
      { paths: [settings.corpus], programs: chosen.map((p) => [p.name, p.sourceHash]), runs: settings.runs, timeoutMs: settings.timeoutMs, traces: settings.traces },
      async (say) => {
        let last = -1;
        const result = await collect({
          paths: [settings.corpus],
          programs: selection,
          runs: settings.runs,
          timeoutMs: settings.timeoutMs,
          jobs: settings.jobs,
          db: settings.db,
          traces: settings.traces,
          signal: options.signal,
          onProgress: (p) => {
            if (p.runsDone === last) return;
            last = p.runsDone;
            say(`${p.programsDone}/${p.programsTotal} programs, ${p.runsDone}/${p.runsTotal} runs, ${p.failures} failed`, true);
          },
        });
        for (const warning of result.warnings) warnings.push(`collect: ${warning}`);
        const buildErrors = result.programs.filter((p) => p.build === "error").length;
        if (buildErrors > 0) warnings.push(`collect: ${buildErrors} program(s) did not build; they are left out (see \`schedlab collect\` output)`);
        return {
          output: { programs: result.programs.length, executed: result.executed, skipped: result.skipped, buildErrors },
          note: `${result.programs.length} programs, ${result.executed} runs executed, ${result.skipped} resumed${buildErrors > 0 ? `, ${buildErrors} build errors` : ""}`,
        };
      },
    );

    const pendingIngest = (): number =>
      (db.prepare("SELECT COUNT(*) AS n FROM runs WHERE ingest_status IS NULL AND trace_path IS NOT NULL").get() as { n: number }).n;
    await stage(
      context,
      "ingest",
      { runs: db.prepare("SELECT id, trace_sha256 FROM runs ORDER BY id").all() },
      async (say) => {
        const summary = await ingestRuns(db, { concurrency: settings.jobs, onProgress: (done, total) => say(`${done}/${total} traces`, true) });
        if (summary.errors > 0) warnings.push(`ingest: ${summary.errors} trace(s) could not be decoded; \`schedlab ingest --json\` lists them`);
        return {
          output: { runs: summary.runs.length, errors: summary.errors, events: summary.events },
          note: `${summary.runs.length} traces decoded (${summary.truncated} truncated, ${summary.errors} errors), ${summary.events} events`,
        };
      },
      () => pendingIngest() === 0,
    );

    const data = ingestedDataHash(db);
    const programs = selectPrograms(db).map((p) => p.name);
    if (programs.length < 2) {
      throw new SchedlabError(
        `only ${programs.length} program(s) have decoded runs in ${settings.db}; the pipeline needs at least 2 (one to train on, one to hold out)`,
        "Point --corpus at a directory with more Go programs, or check `schedlab collect` output for build errors.",
      );
    }

    await stage(context, "distributions", { data, abstraction: settings.abstraction }, async () => {
      const refreshed = refreshDataset(db, { abstraction: settings.abstraction });
      return { output: { rebuilt: refreshed.rebuilt.length }, note: `${settings.abstraction} states of ${refreshed.rebuilt.length} programs rebuilt, ${refreshed.unchanged.length} unchanged` };
    });

    const holdout = pipelineHoldout(db);
    const split = resolveHoldout(db, holdout);

    const adapterDir = (name: string): string => join(settings.adapters, settings.quick ? `quick-${name}` : name);
    const trained = await stage<TrainOutput>(
      context,
      "train",
      { data, holdout, abstraction: settings.abstraction, model: settings.studentModel, epochs: settings.studentEpochs, students: PIPELINE_STUDENTS, adapters: settings.adapters },
      async (say) => {
        const students: StudentOutput[] = [];
        const failures: string[] = [];
        for (const student of PIPELINE_STUDENTS) {
          const out = adapterDir(student.name);
          try {
            const result = await trainFromDatabase(db, {
              objective: student.objective,
              abstraction: settings.abstraction,
              tags: student.tags,
              model: settings.studentModel,
              epochs: settings.studentEpochs,
              holdout,
              out,
              onProgress: (line) => say(`${student.name}: ${line}`, true),
            });
            students.push({ name: student.name, path: out });
            const h = result.card.holdout;
            say(`${student.name}: ${h === null ? "trained" : `holdout accuracy ${(100 * h.accuracy).toFixed(1)}%`}`);
          } catch (error) {
            failures.push(`train ${student.name}: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
        if (students.length === 0 && failures.length > 0) warnings.push(...failures);
        return { output: { students, failures }, note: `${students.map((s) => s.name).join(", ") || "no students"} (${settings.studentModel})` };
      },
      (output) => output.students.every((s) => existsSync(join(s.path, "card.json"))),
    );
    warnings.push(...trained.failures);

    const studentSpecs = trained.students.map((s) => `student:${s.path}`);
    const specs = [...PIPELINE_BASELINES, ...studentSpecs];
    const evaluated = await stage<EvalOutput>(
      context,
      "eval",
      { data, holdout, abstraction: settings.abstraction, specs, adapters: trained.students.map((s) => adapterHash(s.path)), resamples: settings.bootstrapResamples },
      async (say) => {
        const run = await runEvaluation(db, {
          predictors: specs,
          abstraction: settings.abstraction,
          holdout,
          bootstrapResamples: settings.bootstrapResamples,
          onProgress: (message, transient) => say(message, transient),
        });
        const failures = run.failures.map((f) => `eval: predictor ${f.predictor} failed: ${f.message}`);
        return { output: { evalRunId: run.id ?? 0, failures }, note: `eval run ${run.id}: ${run.result.predictors.length} predictors on ${run.testPrograms.length} test programs` };
      },
      (output) => (db.prepare("SELECT 1 FROM eval_runs WHERE id = ?").get(output.evalRunId) ?? null) !== null,
    );
    warnings.push(...evaluated.failures);
    const evaluation = loadEvaluation(db, evaluated.evalRunId);
    const predictors = predictorSummaries(evaluation.predictors, trained.students);
    const bestStudent = bestStudentOf(predictors);

    const leaks = await runOptionalStage(context, warnings, "leaks", { data }, async () => {
      const analysis = analyseLeaks(db);
      const score = scoreLeaks(db, { save: false });
      const summary = leakSummaryOf(analysis, score);
      return { output: { summary } as LeaksOutput, note: `${summary.findings} findings in ${summary.programsWithFindings} of ${summary.programsAnalysed} programs` };
    });

    const best = bestStudent === null ? null : predictors.find((p) => p.name === bestStudent)!;
    const rolloutSpec = best?.spec ?? "ngram:3";
    const rollout = await runOptionalStage(
      context,
      warnings,
      "rollout",
      { data, holdout, abstraction: settings.abstraction, spec: rolloutSpec, adapter: best === null ? null : adapterHash(best.spec.slice("student:".length)), settings: settings.rollout },
      async (say) => {
        const report = await runRollouts(db, {
          predictor: rolloutSpec,
          abstraction: settings.abstraction,
          holdout,
          steps: settings.rollout.steps,
          samples: settings.rollout.samples,
          prefixes: settings.rollout.prefixes,
          seed: 1,
          onProgress: (message) => say(message, true),
        });
        const rolloutRunId = saveRolloutReport(db, report);
        const o = report.overall;
        const summary: RolloutSummary = { predictor: best?.name ?? rolloutSpec, steps: report.steps, meanSurvival: o.meanSurvival, kStepAccuracy: o.kStepAccuracy, reachedK: o.reachedK };
        return { output: { rolloutRunId, summary } as RolloutOutput, note: `${summary.predictor}: mean survival ${o.meanSurvival.toFixed(2)}/${report.steps} steps over ${report.prefixes.length} prefixes` };
      },
      (output) => (db.prepare("SELECT 1 FROM rollout_runs WHERE id = ?").get(output.rolloutRunId) ?? null) !== null,
    );

    const summaryBase = {
      db: settings.db,
      abstraction: settings.abstraction,
      programs: programs.length,
      testPrograms: split.test,
      evalRunId: evaluated.evalRunId,
      predictors,
      bestStudent,
      leaks: leaks?.summary ?? null,
      rollout: rollout?.summary ?? null,
    };
    const reported = await stage<ReportOutput>(
      context,
      "report",
      { evalRunId: evaluated.evalRunId, leaks: leaks?.summary ?? null, rolloutRunId: rollout?.rolloutRunId ?? null, out: settings.out, collected, warnings },
      async () => {
        // Students are evaluated under their `student:/abs/path` spec; the report shows "student:NAME".
        const short = new Map(predictors.map((p) => [p.spec, p.name]));
        const rename = (name: string): string => short.get(name) ?? name;
        const stored = loadEvaluation(db, evaluated.evalRunId);
        const shown: StoredEvaluation = {
          ...stored,
          predictors: stored.predictors.map((p) => ({ ...p, name: rename(p.name) })),
          comparisons: stored.comparisons.map((c) => ({ ...c, a: rename(c.a), b: rename(c.b) })),
        };
        const history = listEvaluations(db).map((e) => ({ ...e, predictors: e.predictors.map((p) => ({ ...p, name: rename(p.name) })) }));
        const sections = [...evaluationSections(shown), evaluationHistorySection(history, evaluated.evalRunId)];
        const leakAnalysis = leaks === null ? null : analyseLeaks(db, { save: false });
        const rolloutRuns = listRolloutRuns(db).filter((r) => rollout !== null && r.id === rollout.rolloutRunId);
        const all = [
          overviewSection({ ...summaryBase, settings, collected, stages: timings, warnings }),
          ...sections,
          leakSection(leakAnalysis, leaks?.summary ?? null),
          rolloutSection(rolloutRuns[0] ?? null, rollout === null ? null : storedRolloutReport(db, rollout.rolloutRunId), rollout?.summary.predictor),
        ];
        const written = writeReport(all, settings.out, {
          title: "schedlab run",
          generatedAt: new Date().toISOString(),
          source: `${settings.db}, eval run ${evaluated.evalRunId}, corpus ${settings.corpus}${settings.quick ? " (--quick subset)" : ""}`,
        });
        return { output: { reportPath: written.html }, note: written.html };
      },
      (output) => existsSync(output.reportPath),
    );
    return { ...summaryBase, reportPath: reported.reportPath, stages: timings, warnings };
  } finally {
    db.close();
  }
}

/** Leaks and rollout add to the report but are not essential: a failure becomes a warning. */
async function runOptionalStage<T>(
  context: StageContext,
  warnings: string[],
  name: PipelineStage,
  inputs: unknown,
  work: (say: (message: string, transient?: boolean) => void) => Promise<{ output: T; note: string }>,
  stillValid?: (output: T) => boolean,
): Promise<T | null> {
  try {
    return await stage(context, name, inputs, work, stillValid);
  } catch (error) {
    const hint = error instanceof SchedlabError ? ` (${error.hint})` : "";
    warnings.push(`${name}: ${error instanceof Error ? error.message : String(error)}${hint}`);
    context.progress({ kind: "message", stage: name, message: `failed, going on without it: ${error instanceof Error ? error.message : String(error)}`, transient: false });
    return null;
  }
}

/**
 * The holdout spec of the pipeline: the default stratified hash split, or — when the
 * corpus is too small for it to hold anything out — the first program by name hash.
 */
export function pipelineHoldout(db: SchedlabDatabase): string | undefined {
  const split = resolveHoldout(db, undefined);
  if (split.test.length > 0) return undefined;
  const names = [...split.train].sort((a, b) => (contentHash(a) < contentHash(b) ? -1 : 1));
  return `list:${names[0]}`;
}

/** The adapter name of a `student:PATH` spec. */
export function studentName(spec: string): string {
  return basename(spec.slice("student:".length));
}

/** The full report of a stored rollout run (its details column), or null when gone. */
function storedRolloutReport(db: SchedlabDatabase, id: number): RolloutReport | null {
  const row = db.prepare("SELECT details FROM rollout_runs WHERE id = ?").get(id) as { details: string } | undefined;
  return row === undefined ? null : (JSON.parse(row.details) as RolloutReport);
}
