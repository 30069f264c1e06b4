// `schedlab eval`: score predictors on the test split of a holdout (docs/metrics.md), store the
// results and print them as a table or JSON; with --cv K, leave-family-out cross-validation
// over the whole corpus instead (src/cv).

import type { Command } from "commander";
import {
  CONFIGS_HELP,
  HOLDOUT_HELP,
  MAX_SAMPLES_HELP,
  PREDICTOR_SPECS_HELP,
  TRAIN_ON_HELP,
  parseAbstraction,
  parseChoice,
  parseIntegerOption,
  parsePositiveInteger,
  parseRunSelection,
} from "./options.js";
import { openExistingDatabase } from "../store/index.js";
import { DEFAULT_RESAMPLES } from "../metrics/index.js";
import { progressWriter } from "./progress.js";
import { crossValidationBoard, crossValidationSection, crossValidationText, evaluationText } from "../report/index.js";
import { DEFAULT_CV_FOLDS, EVAL_JSON_VERSION, FOLD_GROUPINGS, runEvaluation } from "../eval/index.js";
import { runCrossValidation } from "../cv/index.js";
import { UsageError } from "../errors.js";
import { cappedLine, DEFAULT_MAX_SAMPLES_PER_PROGRAM, sampleCapJson, type Abstraction } from "../dataset/index.js";

interface EvalFlags {
  readonly configs: string;
  readonly predictor: string[];
  readonly abstraction?: string[];
  readonly holdout?: string;
  readonly trainOn?: string;
  readonly cv?: string | true;
  readonly cvSeed: string;
  readonly cvBy: string;
  readonly cvTestCorpora?: boolean;
  readonly adapters: string;
  readonly force?: boolean;
  readonly db: string;
  readonly baseUrl?: string;
  readonly allowDownload?: boolean;
  readonly concurrency?: string;
  readonly resamples: string;
  readonly seed: string;
  readonly store: boolean;
  readonly json?: boolean;
  readonly markdown?: boolean;
  readonly maxSamplesPerProgram: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];
/** Like collect, without a default, so --help shows none. */
const collectOptional = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function registerEval(program: Command): void {
  program
    .command("eval")
    .description(
      "Score predictors on the held-out programs: accuracy with the ceiling and majority beside it, " +
        "per-event P/R/F1, calibration (ECE, Brier, NLL, KL, L1), entropy correlation, and paired " +
        "comparisons; with --cv K, leave-family-out cross-validation over the whole corpus.",
    )
    .option("--predictor <spec>", `${PREDICTOR_SPECS_HELP} (repeat for several)`, collect, [])
    .option(
      "--abstraction <name>",
      "state abstraction: split, depth, goroutine or context (required; with --cv repeatable, default depth and split)",
      collectOptional,
    )
    .option("--holdout <spec>", `${HOLDOUT_HELP}; with --cv (no k): the one test fold`)
    .option(
      "--train-on <spec>",
      `${TRAIN_ON_HELP}; with --cv the folds are dealt from them alone (CV within that training set)`,
    )
    .option(
      "--cv [k]",
      `leave-family-out cross-validation instead of a holdout: the families in k folds (default ` +
        `${DEFAULT_CV_FOLDS}), students (student:kl, student:kl-tags, …: recipes, not paths) trained per ` +
        `fold; with --holdout, one fold (the holdout) scored the same way; not stored`,
    )
    .option("--cv-seed <n>", "--cv: seed of the fold assignment", "1")
    .option(
      "--cv-by <grouping>",
      "--cv: family (families dealt into k balanced folds) or source (one fold per top-level directory of " +
        "the families, k unused: code from a source no training program shares)",
      "family",
    )
    .option("--cv-test-corpora", "--cv: put the test corpora's families into the folds too (default: left out)")
    .option(
      "--adapters <dir>",
      "--cv: fold students go under DIR/cv/<hash>/fold-<i>/<recipe> and are reused",
      "adapters",
    )
    .option("--force", "--cv: retrain the fold students even when cached")
    .option("--configs <list>", CONFIGS_HELP, "plain")
    .option("--max-samples-per-program <n>", MAX_SAMPLES_HELP, String(DEFAULT_MAX_SAMPLES_PER_PROGRAM))
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--base-url <url>", "OpenAI-compatible endpoint for openai:MODEL, ending in /v1 (default $OPENAI_BASE_URL)")
    .option("--allow-download", "let hf:MODEL fetch weights from the hub")
    .option("--concurrency <n>", "requests in flight for openai:MODEL")
    .option("--resamples <n>", "bootstrap resamples for confidence intervals", String(DEFAULT_RESAMPLES))
    .option("--seed <n>", "bootstrap seed", "1")
    .option("--no-store", "do not store the results in the database")
    .option("--json", "machine-readable output")
    .option("--markdown", "--cv: the scoreboard as Markdown tables (what scripts/cv-table.mjs puts in the docs)")
    .action(async (flags: EvalFlags) => {
      if (flags.markdown === true && (flags.cv === undefined || flags.json === true))
        throw new UsageError("--markdown goes with --cv and without --json", "Pass --cv K --markdown.");
      if (flags.cv !== undefined) {
        await crossValidate(flags);
        return;
      }
      const given = flags.abstraction ?? [];
      if (given.length !== 1)
        throw new UsageError(
          "eval needs exactly one --abstraction (several only with --cv)",
          "Pass e.g. --abstraction depth.",
        );
      const abstraction = parseAbstraction(given[0]!);
      const concurrency =
        flags.concurrency === undefined ? undefined : parsePositiveInteger("--concurrency", flags.concurrency);
      const bootstrapResamples = parsePositiveInteger("--resamples", flags.resamples);
      const bootstrapSeed = parseIntegerOption("--seed", flags.seed);
      const db = openExistingDatabase(flags.db);
      const progress = progressWriter(process.stderr);
      try {
        const run = await runEvaluation(db, {
          predictors: flags.predictor,
          abstraction,
          holdout: flags.holdout,
          trainOn: flags.trainOn,
          runs: parseRunSelection(flags.configs),
          maxSamplesPerProgram: parsePositiveInteger("--max-samples-per-program", flags.maxSamplesPerProgram),
          predictorContext: {
            baseUrl: flags.baseUrl,
            allowDownload: flags.allowDownload === true,
            concurrency,
          },
          bootstrapResamples,
          bootstrapSeed,
          store: flags.store,
          onProgress: progress.write,
        });
        progress.done();
        for (const f of run.failures)
          process.stderr.write(`schedlab: predictor ${f.predictor} failed: ${f.message}\n  ${f.hint}\n`);
        if (flags.json === true) {
          const { predictors, comparisons, abstraction: a, holdout } = run.result;
          const json = {
            schemaVersion: EVAL_JSON_VERSION,
            evalRunId: run.id,
            abstraction: a,
            holdout,
            trainOn: flags.trainOn ?? null,
            trainPrograms: run.trainPrograms,
            testPrograms: run.testPrograms,
            predictors,
            comparisons,
            failures: run.failures,
            cache: run.cache,
            cap: sampleCapJson(run.sampleCap),
          };
          process.stdout.write(`${JSON.stringify(json)}\n`);
        } else {
          process.stdout.write(evaluationText(run.result));
          process.stdout.write(`${cappedLine(run.sampleCap)}\n`);
          if (run.id !== null)
            process.stdout.write(`\nstored as eval run ${run.id}; \`schedlab report --db ${flags.db}\` renders it\n`);
        }
        if (run.failures.length > 0) process.exitCode = 1;
      } finally {
        db.close();
      }
    });
}

/** `eval --cv K`: every program tested once, in the fold its family was dealt to. */
async function crossValidate(flags: EvalFlags): Promise<void> {
  if (flags.holdout !== undefined && flags.cv !== true)
    throw new UsageError(
      `--cv ${flags.cv} and --holdout do not go together: with --holdout the holdout is the one test fold`,
      "Pass --cv without k to score the holdout with the CV scoreboard, or drop --holdout for k folds.",
    );
  if (flags.holdout !== undefined && (flags.cvBy !== "family" || flags.cvTestCorpora === true))
    throw new UsageError(
      "--cv-by and --cv-test-corpora deal folds, and with --holdout there is one fold, the holdout",
      "Drop them, or drop --holdout.",
    );
  const folds = flags.cv === true ? DEFAULT_CV_FOLDS : parseIntegerOption("--cv", flags.cv!, 2);
  const abstractions: Abstraction[] =
    flags.abstraction === undefined ? ["depth", "split"] : [...new Set(flags.abstraction.map(parseAbstraction))];
  const db = openExistingDatabase(flags.db);
  const progress = progressWriter(process.stderr);
  try {
    const run = await runCrossValidation(db, {
      predictors: flags.predictor,
      abstractions,
      folds,
      foldSeed: parseIntegerOption("--cv-seed", flags.cvSeed),
      foldBy: parseChoice("--cv-by", flags.cvBy, FOLD_GROUPINGS),
      runs: parseRunSelection(flags.configs),
      maxSamplesPerProgram: parsePositiveInteger("--max-samples-per-program", flags.maxSamplesPerProgram),
      includeTestCorpora: flags.cvTestCorpora === true,
      trainOn: flags.trainOn,
      holdout: flags.holdout,
      adapters: flags.adapters,
      force: flags.force === true,
      predictorContext: {
        baseUrl: flags.baseUrl,
        allowDownload: flags.allowDownload === true,
        concurrency:
          flags.concurrency === undefined ? undefined : parsePositiveInteger("--concurrency", flags.concurrency),
      },
      bootstrapResamples: parsePositiveInteger("--resamples", flags.resamples),
      bootstrapSeed: parseIntegerOption("--seed", flags.seed),
      onProgress: progress.write,
    });
    progress.done();
    const failures = run.abstractions.flatMap((a) => a.failures);
    for (const f of failures)
      process.stderr.write(`schedlab: predictor ${f.predictor} failed: ${f.message}\n  ${f.hint}\n`);
    if (flags.json === true) {
      const json = {
        schemaVersion: EVAL_JSON_VERSION,
        cv: {
          folds: run.folds,
          seed: run.foldSeed,
          reference: run.reference,
          trainOn: run.trainOn ?? null,
          holdout: run.holdout ?? null,
        },
        abstractions: run.abstractions.map((a) => ({
          abstraction: a.abstraction,
          seconds: a.seconds,
          cacheDir: a.cacheDir,
          folds: a.folds,
          cap: sampleCapJson(a.sampleCap),
          ...a.scores,
          failures: a.failures,
        })),
      };
      process.stdout.write(`${JSON.stringify(json)}\n`);
    } else if (flags.markdown === true) {
      process.stdout.write(`${crossValidationSection(crossValidationBoard(run)).markdown()}\n`);
    } else {
      process.stdout.write(crossValidationText(run));
    }
    if (failures.length > 0) process.exitCode = 1;
  } finally {
    db.close();
  }
}
