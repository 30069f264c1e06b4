// `schedlab ingest`: decodes recorded runs' traces into the database.

import type { Command } from "commander";
import { parseChoice, parsePositiveInteger } from "./options.js";
import { progressWriter } from "./progress.js";
import { openDatabase } from "../store/index.js";
import { ingestRuns, STORE_MODES, type IngestSummary, type StoreMode } from "../trace/index.js";

interface IngestFlags {
  db: string;
  force?: boolean;
  jobs?: string;
  store: string;
  json?: boolean;
}

export function registerIngest(program: Command): void {
  program
    .command("ingest")
    .description("Decode the traces of recorded runs into goroutine events (runs not yet ingested; all with --force)")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--force", "re-ingest runs that were already ingested")
    .option("--jobs <n>", "traces decoded at once (default: min(2, CPUs))")
    .option(
      "--store <mode>",
      "what to keep of each run: events (every record, what dist, train, eval, events and export read; " +
        "also re-ingests runs stored as summaries) or summary (goroutines and end states: what leaks and " +
        "collect --replay need)",
      "events",
    )
    .option("--json", "print the per-run results as JSON")
    .action(async (flags: IngestFlags) => {
      const jobs = flags.jobs === undefined ? undefined : parsePositiveInteger("--jobs", flags.jobs);
      const store = parseChoice("--store", flags.store, STORE_MODES);
      const db = openDatabase(flags.db);
      try {
        const progress = progressWriter(process.stderr, { quiet: flags.json === true });
        const summary = await ingestRuns(db, {
          force: flags.force ?? false,
          concurrency: jobs,
          store,
          onProgress: (message, transient) => progress.write(`ingest ${message}`, transient),
        });
        progress.done();
        process.stdout.write(flags.json ? `${JSON.stringify(summary, null, 2)}\n` : humanSummary(summary, store));
        if (summary.errors > 0) process.exitCode = 1;
      } finally {
        db.close();
      }
    });
}

function humanSummary(summary: IngestSummary, store: StoreMode): string {
  const lines = summary.runs
    .filter((r) => r.status !== "ok")
    .map(
      (r) => `run ${r.runId}: ${r.status}${r.status === "truncated" ? ` (${r.events} events kept)` : ""}: ${r.message}`,
    );
  lines.push(
    `${summary.runs.length} run(s) ingested: ${summary.ok} ok, ${summary.truncated} truncated, ` +
      `${summary.errors} error(s); ${summary.events} events` +
      `${store === "summary" ? " folded into end states (--store summary: not stored)" : ""}.`,
  );
  if (summary.runs.length === 0)
    lines.push("Nothing to ingest: every run with a trace is already ingested (use --force to redo).");
  return `${lines.join("\n")}\n`;
}
