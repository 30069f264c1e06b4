// `schedlab report`: write index.html (inline SVG), report.md and metrics.json from the stored
// results — the latest evaluation, or, in a database with a collection and no evaluation, the
// collection with its leaks, races and flaky tests.

import type { Command } from "commander";
import { parsePositiveInteger } from "./options.js";
import { openExistingDatabase } from "../store/index.js";
import { resolve } from "node:path";
import {
  collectionReportSections,
  hasEvaluation,
  reportSections,
  writeReport,
  type ReportSection,
} from "../report/index.js";

interface ReportFlags {
  readonly db: string;
  readonly out: string;
  readonly evalRun?: string;
  readonly title: string;
  readonly json?: boolean;
}

export function registerReport(program: Command): void {
  program
    .command("report")
    .description(
      "Write a self-contained HTML report (inline SVG charts), a Markdown report and metrics.json from the " +
        "latest stored evaluation; without one, from the collection: what was collected, its leaks, races " +
        "and flaky tests.",
    )
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--out <dir>", "output directory", "report")
    .option("--eval-run <id>", "report this eval run instead of the latest")
    .option("--title <text>", "report title", "schedlab report")
    .option("--json", "print the written paths as JSON")
    .action(async (flags: ReportFlags) => {
      const db = openExistingDatabase(flags.db);
      try {
        const evalRunId = flags.evalRun === undefined ? undefined : parsePositiveInteger("--eval-run", flags.evalRun);
        let sections: ReportSection[];
        let used: number | null = null;
        if (evalRunId !== undefined || hasEvaluation(db)) {
          ({ sections, evalRunId: used } = reportSections(db, { evalRunId }));
        } else {
          sections = await collectionReportSections(db);
        }
        const written = writeReport(sections, flags.out, {
          title: flags.title,
          generatedAt: new Date().toISOString(),
          source: `${resolve(flags.db)}, ${used === null ? "collection only (no evaluation)" : `eval run ${used}`}`,
        });
        if (flags.json === true)
          process.stdout.write(
            `${JSON.stringify({ ...written, evalRunId: used, sections: sections.map((s) => s.id) })}\n`,
          );
        else process.stdout.write(`wrote ${written.html}\n      ${written.markdown}\n      ${written.json}\n`);
      } finally {
        db.close();
      }
    });
}
