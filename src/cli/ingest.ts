// `schedlab ingest`: decodes recorded runs' traces into the database.

import { Option, type Command } from "commander";
import { parseChoice, parsePositiveInteger } from "./options.js";
import { progressWriter } from "./progress.js";
import { openDatabase } from "../store/index.js";
import {
  DEFAULT_MAX_STORED_RECORDS,
  ingestRuns,
  STORE_MODES,
  type IngestKeep,
  type IngestSummary,
  type StoreMode,
} from "../trace/index.js";

/** The flags that say what ingest keeps of each run (ingest's, and collect's for its ingest). */
interface KeepFlags {
  store: string;
  maxStoredRecords?: string;
  dropTraces?: boolean;
}

interface IngestFlags extends KeepFlags {
  db: string;
  force?: boolean;
  jobs?: string;
  json?: boolean;
}

/** --max-stored-records, shared by ingest and collect. */
export function maxStoredRecordsOption(): Option {
  return new Option(
    "--max-stored-records <n>",
    "with --store events: a run whose trace gives more records is stored as an excerpt of about n " +
      "(windows along the whole run; its end state, what leaks read, from every record; docs/schema.md, " +
      `Excerpts) (default: ${DEFAULT_MAX_STORED_RECORDS})`,
  );
}

/** --drop-traces, shared by ingest and collect. */
export function dropTracesOption(): Option {
  return new Option(
    "--drop-traces",
    "delete each run's trace file once the run is stored (ok or truncated; a trace that fails to decode " +
      "stays): a corpus then takes its database's space only. The run counts as collected and is never " +
      "re-ingested; `go tool trace` and `collect --replay` of a plain collect's run need the trace",
  );
}

/** What --store, --max-stored-records and --drop-traces ask ingest to keep. */
export function ingestKeepOf(flags: KeepFlags): IngestKeep {
  return {
    store: parseChoice("--store", flags.store, STORE_MODES),
    ...(flags.dropTraces === true ? { dropTraces: true } : {}),
    ...(flags.maxStoredRecords === undefined
      ? {}
      : { maxStoredRecords: parsePositiveInteger("--max-stored-records", flags.maxStoredRecords) }),
  };
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
    .addOption(maxStoredRecordsOption())
    .addOption(dropTracesOption())
    .option("--json", "print the per-run results as JSON")
    .action(async (flags: IngestFlags) => {
      const jobs = flags.jobs === undefined ? undefined : parsePositiveInteger("--jobs", flags.jobs);
      const keep = ingestKeepOf(flags);
      const store = keep.store ?? "events";
      const db = openDatabase(flags.db);
      try {
        const progress = progressWriter(process.stderr, { quiet: flags.json === true });
        const summary = await ingestRuns(db, {
          force: flags.force ?? false,
          concurrency: jobs,
          ...keep,
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
  if (summary.excerpts > 0)
    lines.push(
      `${summary.excerpts} run(s) gave more records than --max-stored-records and are stored as excerpts ` +
        "(windows along each run; leaks read their end states, folded from every record).",
    );
  if (summary.withoutTrace > 0)
    lines.push(
      `${summary.withoutTrace} run(s) left as stored: their traces were dropped after their ingest (--drop-traces).`,
    );
  if (summary.runs.length === 0)
    lines.push("Nothing to ingest: every run with a trace is already ingested (use --force to redo).");
  return `${lines.join("\n")}\n`;
}
