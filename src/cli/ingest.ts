// `schedlab ingest`: decodes recorded runs' traces into the database.

import type { Command } from "commander";
import { parsePositiveInteger } from "./options.js";
import { progressWriter } from "./progress.js";
import { openDatabase } from "../store/index.js";
import { ingestRuns, type IngestSummary } from "../trace/index.js";

interface IngestFlags {
  db: string;
  force?: boolean;
  jobs?: string;
  json?: boolean;
}

export function registerIngest(program: Command): void {
  program
    .command("ingest")
    .description("Decode the traces of recorded runs into goroutine events (runs not yet ingested; all with --force)")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--force", "re-ingest runs that were already ingested")
    .option("--jobs <n>", "traces decoded at once (default: min(2, CPUs))")
    .option("--json", "print the per-run results as JSON")
    .action(async (flags: IngestFlags) => {
      const jobs = flags.jobs === undefined ? undefined : parsePositiveInteger("--jobs", flags.jobs);
      const db = openDatabase(flags.db);
      try {
        const progress = progressWriter(process.stderr, { quiet: flags.json === true });
        const summary = await ingestRuns(db, {
          force: flags.force ?? false,
          concurrency: jobs,
          onProgress: (message, transient) => progress.write(`ingest ${message}`, transient),
        });
        progress.done();
        process.stdout.write(flags.json ? `${JSON.stringify(summary, null, 2)}\n` : humanSummary(summary));
        if (summary.errors > 0) process.exitCode = 1;
      } finally {
        db.close();
      }
    });
}

function humanSummary(summary: IngestSummary): string {
  const lines = summary.runs
    .filter((r) => r.status !== "ok")
    .map((r) => `run ${r.runId}: ${r.status}${r.status === "truncated" ? ` (${r.events} events kept)` : ""}: ${r.message}`);
  lines.push(
    `${summary.runs.length} run(s) ingested: ${summary.ok} ok, ${summary.truncated} truncated, ${summary.errors} error(s); ${summary.events} events.`,
  );
  if (summary.runs.length === 0) lines.push("Nothing to ingest: every run with a trace is already ingested (use --force to redo).");
  return `${lines.join("\n")}\n`;
}
