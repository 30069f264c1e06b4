// `schedlab dist`: per-state empirical next-event distributions and their summary.

import type { Command } from "commander";
import { distributionJson, distributionReport, formatDistributionTable } from "../dataset/dist.js";
import { parseAbstraction, openExistingDatabase } from "../dataset/options.js";

export function registerDist(program: Command): void {
  program
    .command("dist")
    .description("Show per-state next-event counts, p̂, entropy and runs, with the ceiling and majority baseline.")
    .requiredOption("--abstraction <name>", "state abstraction: split, depth, goroutine or context")
    .option("--program <name>", "only this program's states")
    .option("--holdout <spec>", "dir:PREFIX | tag:TAG | list:a,b | outcome:OUTCOME | saved name; shows the held-out programs")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--limit <n>", "rows shown on a terminal (0 = all)", "40")
    .option("--json", "machine-readable output")
    .action((opts: { abstraction: string; program?: string; holdout?: string; db: string; limit: string; json?: boolean }) => {
      const db = openExistingDatabase(opts.db);
      try {
        const report = distributionReport(db, { abstraction: parseAbstraction(opts.abstraction), program: opts.program, holdout: opts.holdout });
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(distributionJson(report))}\n`);
          return;
        }
        const limit = Number(opts.limit);
        const maxRows = !Number.isFinite(limit) || limit <= 0 ? Infinity : limit;
        process.stdout.write(`${formatDistributionTable(report, { maxRows })}\n`);
      } finally {
        db.close();
      }
    });
}
