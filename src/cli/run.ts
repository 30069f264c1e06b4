// `schedlab run`: the whole pipeline on a corpus (collect → … → report), then the report's
// path and a short summary (or JSON with --json).

import type { Command } from "commander";
import { parseAbstraction, parseIntegerOption, parsePositiveInteger } from "./options.js";
import { parseDuration } from "../collect/index.js";
import { runPipeline, summaryLines, type PipelineSummary, type SectionSummary } from "../run/index.js";
import { progressWriter } from "./progress.js";

interface RunFlags {
  readonly corpus: string;
  readonly testCorpus?: string[];
  readonly runs?: string;
  readonly quick?: boolean;
  readonly db: string;
  readonly out: string;
  readonly adapters: string;
  readonly traces: string;
  readonly jobs?: string;
  readonly timeout?: string;
  readonly abstraction: string;
  readonly student?: string[];
  readonly cv?: string;
  readonly force?: boolean;
  readonly json?: boolean;
}

/** A predictor's headline numbers without its full spec (the short name stands for it). */
const predictorJson = (p: PipelineSummary["predictors"][number]) => {
  const { spec: _spec, ...json } = p;
  return json;
};

const sectionJson = (s: SectionSummary) => ({
  holdout: s.holdout,
  description: s.description,
  evalRunId: s.evalRunId,
  testPrograms: s.testPrograms,
  families: s.families,
  best: s.best,
  predictors: s.predictors.map(predictorJson),
  rollout: s.rollout,
});

/**
 * The version of `run --json`'s output, its first field `schemaVersion` (docs/run.md). 2: each
 * predictor's `otherRunsAccuracy` and the CV board's `otherRuns`, `otherRunsEce` and
 * `otherRunsNll`, its gap to the leave-one-run-out ceiling taken on them (2026-12-06); 3: each
 * predictor's `means` and `concentration`, the CV board's `means`, `otherRunsMeans` and
 * `concentration` (2026-12-07); output without the field is version 1.
 */
export const RUN_JSON_VERSION = 3;

/** The --json shape promised to scripts (docs/run.md): the in-distribution section's fields at the top, each test corpus in external[]. */
export function summaryJson(summary: PipelineSummary): unknown {
  return {
    schemaVersion: RUN_JSON_VERSION,
    reportPath: summary.reportPath,
    db: summary.db,
    abstraction: summary.abstraction,
    programs: summary.programs,
    ...sectionJson(summary),
    external: summary.external.map((e) => ({ corpus: e.corpus, ...sectionJson(e) })),
    leaks: summary.leaks,
    crossValidation: summary.crossValidation,
    stages: summary.stages,
    warnings: summary.warnings,
  };
}

/** Commander accumulator of the repeatable --test-corpus flag. */
function collectDirs(dir: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), dir];
}

export function registerRun(program: Command): void {
  program
    .command("run")
    .description(
      "Run the whole pipeline on a corpus: collect, ingest, distributions, train students, evaluate on " +
        "held-out programs, leaks, rollouts, and write report/index.html.",
    )
    .option("--corpus <dir>", "directory of Go programs", "go-programs")
    .option(
      "--test-corpus <dir>",
      "also collect DIR (or a module of the Go module proxy, github.com/x/y@v1.2.3) as a test corpus, never trained " +
        "on, and evaluate, roll out and report on it beside the in-distribution holdout; repeatable",
      collectDirs,
    )
    .option("--runs <n>", "traced runs per program (default 5; 3 with --quick)")
    .option("--quick", "a quick look: a category-stratified subset, 3 runs, 2 s deadline, logistic-regression students")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--out <dir>", "report directory", "report")
    .option("--adapters <dir>", "where the trained students are saved", "adapters")
    .option("--traces <dir>", "directory for traces and goroutine dumps", "traces")
    .option("--jobs <n>", "concurrent builds, runs and trace decodes (default: the number of CPUs)")
    .option("--timeout <duration>", "deadline per traced run (default 5s; 2s with --quick)")
    .option("--abstraction <name>", "state abstraction: split, depth, goroutine or context", "depth")
    .option(
      "--student <recipe>",
      "a student to train, evaluate and cross-validate, named as eval --cv names recipes (kl, kl-tags, " +
        "kl-confevid, kl-clip, …); repeatable (default: kl and kl-tags)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      "--cv <k>",
      "folds of the leave-family-out cross-validation stage (students and baselines at depth and split, reported beside the holdout); 0 skips it (default 3)",
    )
    .option("--force", "redo every stage even when its inputs are unchanged (recorded runs are still reused)")
    .option("--json", "print the summary as JSON on stdout")
    .action(async (flags: RunFlags) => {
      // While collect runs, Ctrl-C or SIGTERM stops its runs cleanly (finished runs stay recorded,
      // exit 130). The stages after it own no processes and store their output only when done,
      // so from then on a signal ends the process at once, as it would without a handler.
      const controller = new AbortController();
      const interrupt = (): void => controller.abort();
      const release = (): void => {
        process.removeListener("SIGINT", interrupt);
        process.removeListener("SIGTERM", interrupt);
      };
      process.once("SIGINT", interrupt);
      process.once("SIGTERM", interrupt);
      const progress = progressWriter(process.stderr);
      try {
        const summary = await runPipeline({
          corpus: flags.corpus,
          testCorpora: flags.testCorpus,
          runs: flags.runs === undefined ? undefined : parsePositiveInteger("--runs", flags.runs),
          quick: flags.quick === true,
          db: flags.db,
          out: flags.out,
          adapters: flags.adapters,
          traces: flags.traces,
          jobs: flags.jobs === undefined ? undefined : parsePositiveInteger("--jobs", flags.jobs),
          timeoutMs: flags.timeout === undefined ? undefined : parseDuration(flags.timeout),
          abstraction: parseAbstraction(flags.abstraction),
          ...(flags.student === undefined ? {} : { students: flags.student }),
          cvFolds: flags.cv === undefined ? undefined : parseIntegerOption("--cv", flags.cv, 0),
          force: flags.force === true,
          signal: controller.signal,
          onStage: (name) => {
            if (name !== "collect") release();
          },
          onProgress: progress.write,
        });
        progress.done();
        for (const warning of summary.warnings) process.stderr.write(`schedlab: warning: ${warning}\n`);
        if (flags.json === true) {
          process.stdout.write(`${JSON.stringify(summaryJson(summary))}\n`);
          return;
        }
        process.stdout.write(`${summaryLines(summary).join("\n")}\nreport: ${summary.reportPath}\n`);
      } finally {
        release();
      }
    });
}
