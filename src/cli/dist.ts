// `schedlab dist`: per-state empirical next-event distributions and their summary.

import type { Command } from "commander";
import {
  CONFIGS_HELP,
  HOLDOUT_HELP,
  MAX_SAMPLES_HELP,
  parseAbstraction,
  parsePositiveInteger,
  parseRowLimit,
  parseRunSelection,
} from "./options.js";
import { openExistingDatabase } from "../store/index.js";
import {
  DEFAULT_MAX_SAMPLES_PER_PROGRAM,
  distributionJson,
  distributionReport,
  formatDistributionTable,
  saveHoldout,
} from "../dataset/index.js";
import { UsageError } from "../errors.js";

export function registerDist(program: Command): void {
  program
    .command("dist")
    .description("Show per-state next-event counts, p̂, entropy and runs, with the ceiling and majority baseline.")
    .requiredOption("--abstraction <name>", "state abstraction: split, depth, goroutine or context")
    .option("--program <name>", "only this program's states")
    .option("--holdout <spec>", HOLDOUT_HELP)
    .option("--configs <list>", CONFIGS_HELP, "plain")
    .option(
      "--save-holdout <name>",
      "save the --holdout's test programs under this name (frozen; reuse with --holdout NAME)",
    )
    .option("--max-samples-per-program <n>", MAX_SAMPLES_HELP, String(DEFAULT_MAX_SAMPLES_PER_PROGRAM))
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--limit <n>", "rows shown on a terminal (0 = all)", "40")
    .option("--json", "machine-readable output")
    .action(
      (opts: {
        abstraction: string;
        program?: string;
        holdout?: string;
        configs: string;
        saveHoldout?: string;
        maxSamplesPerProgram: string;
        db: string;
        limit: string;
        json?: boolean;
      }) => {
        const abstraction = parseAbstraction(opts.abstraction);
        const maxRows = parseRowLimit("--limit", opts.limit);
        const db = openExistingDatabase(opts.db);
        try {
          if (opts.saveHoldout !== undefined) {
            if (opts.holdout === undefined)
              throw new UsageError(
                "--save-holdout needs --holdout SPEC",
                "Pass e.g. --holdout dir:kernels --save-holdout kernels.",
              );
            const saved = saveHoldout(db, opts.saveHoldout, opts.holdout);
            process.stderr.write(
              `saved holdout ${opts.saveHoldout}: ${saved.test.length} test programs (${saved.description})\n`,
            );
          }
          const report = distributionReport(db, {
            abstraction,
            program: opts.program,
            holdout: opts.holdout,
            runs: parseRunSelection(opts.configs),
            maxSamplesPerProgram: parsePositiveInteger("--max-samples-per-program", opts.maxSamplesPerProgram),
          });
          if (opts.json) {
            process.stdout.write(`${JSON.stringify(distributionJson(report))}\n`);
            return;
          }
          process.stdout.write(`${formatDistributionTable(report, { maxRows })}\n`);
        } finally {
          db.close();
        }
      },
    );
}
