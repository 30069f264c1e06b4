// `schedlab eval`: score predictors on the test split of a holdout (DESIGN §8), store the
// results and print them as a table or JSON.

import type { Command } from "commander";
import { CONFIGS_HELP, HOLDOUT_HELP, PREDICTOR_SPECS_HELP, parseAbstraction, parseIntegerOption, parsePositiveInteger, parseRunSelection } from "./options.js";
import { openExistingDatabase } from "../store/index.js";
import { DEFAULT_RESAMPLES } from "../eval/metrics/clusterBootstrap.js";
import { progressWriter } from "./progress.js";
import { runEvaluation } from "../eval/from-database.js";
import { evaluationText } from "../report/terminal.js";

interface EvalFlags {
  readonly configs: string;
  readonly predictor: string[];
  readonly abstraction: string;
  readonly holdout?: string;
  readonly db: string;
  readonly baseUrl?: string;
  readonly allowDownload?: boolean;
  readonly concurrency?: string;
  readonly resamples: string;
  readonly seed: string;
  readonly store: boolean;
  readonly json?: boolean;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerEval(program: Command): void {
  program
    .command("eval")
    .description(
      "Score predictors on the held-out programs: accuracy with the ceiling and majority beside it, per-event P/R/F1, calibration (ECE, Brier, NLL, KL, L1), entropy correlation, and paired comparisons.",
    )
    .option("--predictor <spec>", `${PREDICTOR_SPECS_HELP} (repeat for several)`, collect, [])
    .requiredOption("--abstraction <name>", "state abstraction: split, depth, goroutine or context")
    .option("--holdout <spec>", HOLDOUT_HELP)
    .option("--configs <list>", CONFIGS_HELP, "plain")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--base-url <url>", "OpenAI-compatible endpoint for openai:MODEL, ending in /v1 (default $OPENAI_BASE_URL)")
    .option("--allow-download", "let hf:MODEL fetch weights from the hub")
    .option("--concurrency <n>", "requests in flight for openai:MODEL")
    .option("--resamples <n>", "bootstrap resamples for confidence intervals", String(DEFAULT_RESAMPLES))
    .option("--seed <n>", "bootstrap seed", "1")
    .option("--no-store", "do not store the results in the database")
    .option("--json", "machine-readable output")
    .action(async (flags: EvalFlags) => {
      const abstraction = parseAbstraction(flags.abstraction);
      const concurrency = flags.concurrency === undefined ? undefined : parsePositiveInteger("--concurrency", flags.concurrency);
      const bootstrapResamples = parsePositiveInteger("--resamples", flags.resamples);
      const bootstrapSeed = parseIntegerOption("--seed", flags.seed);
      const db = openExistingDatabase(flags.db);
      const progress = progressWriter(process.stderr);
      try {
        const run = await runEvaluation(db, {
          predictors: flags.predictor,
          abstraction,
          holdout: flags.holdout,
          runs: parseRunSelection(flags.configs),
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
        for (const f of run.failures) process.stderr.write(`schedlab: predictor ${f.predictor} failed: ${f.message}\n  ${f.hint}\n`);
        if (flags.json === true) {
          const { predictors, comparisons, abstraction: a, holdout } = run.result;
          const json = { evalRunId: run.id, abstraction: a, holdout, trainPrograms: run.trainPrograms, testPrograms: run.testPrograms, predictors, comparisons, failures: run.failures, cache: run.cache };
          process.stdout.write(`${JSON.stringify(json)}\n`);
        } else {
          process.stdout.write(evaluationText(run.result));
          if (run.id !== null) process.stdout.write(`\nstored as eval run ${run.id}; \`schedlab report --db ${flags.db}\` renders it\n`);
        }
        if (run.failures.length > 0) process.exitCode = 1;
      } finally {
        db.close();
      }
    });
}
