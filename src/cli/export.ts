// `schedlab export`: the dataset as JSONL for fine-tuning elsewhere (docs/export.md).

import type { Command } from "commander";
import {
  CONFIGS_HELP,
  HOLDOUT_HELP,
  parseAbstraction,
  parseChoice,
  parsePositiveInteger,
  parseRunSelection,
} from "./options.js";
import { openExistingDatabase } from "../store/index.js";
import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import {
  EXPORT_OBJECTIVES,
  EXPORT_SPLITS,
  exportDataset,
  type ExportObjective,
  type ExportSplit,
} from "../dataset/index.js";

interface ExportCliOptions {
  configs: string;
  format: string;
  objective: string;
  abstraction: string;
  holdout?: string;
  split: string;
  chat?: boolean;
  maxTokens: string;
  maxSourceTokens: string;
  out?: string;
  db: string;
}

export function registerExport(program: Command): void {
  program
    .command("export")
    .description("Export samples (ce) or states with soft targets p̂ (kl) as JSONL for fine-tuning.")
    .option("--format <format>", "output format (jsonl)", "jsonl")
    .requiredOption("--objective <ce|kl>", "ce: one record per observed run; kl: one record per state with p̂")
    .option("--abstraction <name>", "state abstraction: split, depth, goroutine or context", "split")
    .option("--holdout <spec>", HOLDOUT_HELP)
    .option("--configs <list>", CONFIGS_HELP, "plain")
    .option("--split <side>", "train (default: a model fine-tuned on it can be scored on test), test or all", "train")
    .option("--chat", "system/user/assistant messages instead of source/prompt fields")
    .option("--max-tokens <n>", "token budget of each trace rendering", "1024")
    .option("--max-source-tokens <n>", "token budget of each program source", "2048")
    .option("--out <file>", "write here instead of stdout")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .action((opts: ExportCliOptions) => {
      parseChoice("--format", opts.format, ["jsonl"]);
      const options = {
        abstraction: parseAbstraction(opts.abstraction),
        objective: parseChoice("--objective", opts.objective, EXPORT_OBJECTIVES) as ExportObjective,
        holdout: opts.holdout,
        runs: parseRunSelection(opts.configs),
        split: parseChoice("--split", opts.split, EXPORT_SPLITS) as ExportSplit,
        chat: opts.chat ?? false,
        maxTokens: parsePositiveInteger("--max-tokens", opts.maxTokens),
        maxSourceTokens: parsePositiveInteger("--max-source-tokens", opts.maxSourceTokens),
      };
      const db = openExistingDatabase(opts.db);
      try {
        if (opts.out === undefined) {
          const summary = exportDataset(db, options, (line) => process.stdout.write(`${line}\n`));
          if (summary.missingSources.length > 0)
            process.stderr.write(
              `schedlab: no readable source for ${summary.missingSources.join(", ")} (records have source "")\n`,
            );
          return;
        }
        // Write to a temporary name and rename, so an interrupted export leaves no half file.
        const target = resolve(opts.out);
        const partial = `${target}.partial`;
        const fd = openSync(partial, "w");
        let summary;
        try {
          summary = exportDataset(db, options, (line) => writeSync(fd, `${line}\n`));
        } catch (error) {
          closeSync(fd);
          rmSync(partial, { force: true });
          throw error;
        }
        closeSync(fd);
        renameSync(partial, target);
        process.stderr.write(
          `exported ${summary.records} ${options.objective} records (${summary.states} states, ` +
            `${summary.programs} programs, abstraction ${options.abstraction}) to ${target}\n`,
        );
        if (summary.missingSources.length > 0)
          process.stderr.write(
            `  no readable source for ${summary.missingSources.join(", ")} (records have source "")\n`,
          );
      } finally {
        db.close();
      }
    });
}
