// `schedlab predict`: run one predictor over a split's states (through the prediction
// cache), print them, and optionally write them as a replay file to score elsewhere.

import type { Command } from "commander";
import {
  CONFIGS_HELP,
  HOLDOUT_HELP,
  PREDICTOR_SPECS_HELP,
  parseAbstraction,
  parsePositiveInteger,
  parseRowLimit,
  parseRunSelection,
} from "./options.js";
import { openExistingDatabase } from "../store/index.js";
import { progressWriter } from "./progress.js";
import { UsageError } from "../errors.js";
import {
  argmax,
  predictDataset,
  PREDICT_SPLITS,
  writeReplayFile,
  type PredictedDataset,
  type PredictSplit,
} from "../predict/index.js";
import { EVENT_TYPES } from "../core/index.js";

interface PredictFlags {
  readonly configs: string;
  readonly predictor: string;
  readonly abstraction: string;
  readonly holdout?: string;
  readonly split: string;
  readonly db: string;
  readonly out?: string;
  readonly baseUrl?: string;
  readonly concurrency?: string;
  readonly timeout?: string;
  readonly allowDownload?: boolean;
  readonly limit: string;
  readonly json?: boolean;
}

function parseSplit(value: string): PredictSplit {
  if ((PREDICT_SPLITS as readonly string[]).includes(value)) return value as PredictSplit;
  throw new UsageError(`unknown --split ${JSON.stringify(value)}`, `Use --split ${PREDICT_SPLITS.join(" | ")}.`);
}

/** One row per state: id, program, key, the six probabilities and the top event. */
export function predictionTable(result: PredictedDataset, maxRows: number): string {
  const header = ["state", "program", "key", ...EVENT_TYPES, "top"];
  const rows = result.states.slice(0, maxRows).map((s, i) => {
    const p = result.predictions[i].probabilities;
    return [s.id, s.program, s.key, ...p.map((v) => v.toFixed(3)), EVENT_TYPES[argmax(p)]];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => cell.padEnd(widths[c]))
      .join("  ")
      .trimEnd();
  const more =
    result.states.length > maxRows
      ? [`… ${result.states.length - maxRows} more states (--limit 0 shows all, --out writes all)`]
      : [];
  return [line(header), ...rows.map(line), ...more].join("\n");
}

export function registerPredict(program: Command): void {
  program
    .command("predict")
    .description(
      "Run one predictor over the states of a split (cached in the database); print them or write a replay JSONL file.",
    )
    .requiredOption("--predictor <spec>", PREDICTOR_SPECS_HELP)
    .requiredOption("--abstraction <name>", "state abstraction: split, depth, goroutine or context")
    .option("--holdout <spec>", HOLDOUT_HELP)
    .option("--configs <list>", CONFIGS_HELP, "plain")
    .option("--split <which>", "whose states to predict: test, train or all", "test")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--out <file>", "write the predictions as a replay file (JSONL, see docs/predictors.md)")
    .option("--base-url <url>", "OpenAI-compatible endpoint for openai:MODEL, ending in /v1 (default $OPENAI_BASE_URL)")
    .option("--concurrency <n>", "requests in flight for openai:MODEL (default 4)")
    .option("--timeout <ms>", "per-request timeout for openai:MODEL in milliseconds (default 60000)")
    .option("--allow-download", "let hf:MODEL fetch weights from the hub")
    .option("--limit <n>", "rows shown on a terminal (0 = all)", "20")
    .option("--json", "machine-readable output")
    .action(async (flags: PredictFlags) => {
      const abstraction = parseAbstraction(flags.abstraction);
      const split = parseSplit(flags.split);
      const db = openExistingDatabase(flags.db);
      const progress = progressWriter(process.stderr, { quiet: flags.json === true });
      try {
        const result = await predictDataset(db, {
          predictor: flags.predictor,
          abstraction,
          holdout: flags.holdout,
          runs: parseRunSelection(flags.configs),
          split,
          context: {
            baseUrl: flags.baseUrl,
            concurrency:
              flags.concurrency === undefined ? undefined : parsePositiveInteger("--concurrency", flags.concurrency),
            timeoutMs: flags.timeout === undefined ? undefined : parsePositiveInteger("--timeout", flags.timeout),
            allowDownload: flags.allowDownload === true,
          },
          onProgress: progress.write,
        });
        progress.done();
        if (flags.out !== undefined)
          writeReplayFile(
            flags.out,
            result.states.map((s, i) => [s, result.predictions[i]] as const),
          );
        if (flags.json === true) {
          const predictions = result.states.map((s, i) => ({
            stateId: s.id,
            program: s.program,
            key: s.key,
            probabilities: Object.fromEntries(EVENT_TYPES.map((e, j) => [e, result.predictions[i].probabilities[j]])),
          }));
          const { states: _states, predictions: _predictions, ...summary } = result;
          process.stdout.write(`${JSON.stringify({ ...summary, out: flags.out ?? null, predictions })}\n`);
          return;
        }
        const maxRows = parseRowLimit("--limit", flags.limit);
        process.stdout.write(
          `${result.predictor.id} (config ${result.predictor.configHash}) on ${result.states.length} ` +
            `${result.abstraction} states of ${result.programs.length} ${result.split} programs (holdout ` +
            `${result.holdout}): ${result.hits} cached, ${result.computed} computed\n`,
        );
        process.stdout.write(`${predictionTable(result, maxRows)}\n`);
        if (flags.out !== undefined)
          process.stdout.write(`wrote ${result.states.length} predictions to ${flags.out}\n`);
      } finally {
        db.close();
      }
    });
}
