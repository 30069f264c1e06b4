// `schedlab events`: the decoded event stream of one run, for a person or as JSON.

import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { openDatabase, type SchedlabDatabase } from "../store/index.js";
import { iterateRunRecords, loadRunGoroutines, shortFunctionName } from "../trace/index.js";
import { parseIntegerOption } from "./numbers.js";

interface EventsFlags {
  db: string;
  program: string;
  run: string;
  config?: string;
  goroutine?: string;
  json?: boolean;
}

/** One row of `schedlab events --json`; other tools rely on these names. */
export interface EventRow {
  readonly seq: number;
  /** Nanoseconds since the start of the trace. */
  readonly time: number;
  readonly event: string;
  readonly reason: string;
  /** Canonical id of the subject. */
  readonly goroutine: string;
  readonly gid: number;
  /** Canonical id of the actor, or null. */
  readonly actor: string | null;
  readonly actorGid: number | null;
  readonly site: string | null;
}

export function registerEvents(program: Command): void {
  program
    .command("events")
    .description("Show the decoded scheduler events of one run: time, actor, subject, event, reason, site")
    .requiredOption("--program <name>", "program name (as in `schedlab collect` output) or id")
    .requiredOption("--run <k>", "run index within the program (0-based)")
    .option("--config <name>", "configuration, when the program was run in several (e.g. procs-2)")
    .option("--goroutine <id>", "only events of this goroutine: canonical id or runtime goroutine id")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--json", "print a JSON array of {seq, time, event, reason, goroutine, gid, actor, actorGid, site}")
    .action((flags: EventsFlags) => {
      const index = parseIntegerOption("--run", flags.run, 0);
      const db = openDatabase(flags.db, { readonly: true });
      try {
        const runId = findRun(db, flags.program, index, flags.config);
        const rows = eventRows(db, runId, flags.goroutine);
        process.stdout.write(flags.json ? `${JSON.stringify(rows, null, 1)}\n` : renderTable(rows));
      } finally {
        db.close();
      }
    });
}

interface RunRow {
  id: number;
  config: string;
  ingest_status: string | null;
  ingest_error: string | null;
}

function findRun(db: SchedlabDatabase, name: string, index: number, config: string | undefined): number {
  const program = db.prepare("SELECT id, name FROM programs WHERE name = ? OR CAST(id AS TEXT) = ?").get(name, name) as
    | { id: number; name: string }
    | undefined;
  if (program === undefined) {
    const names = (db.prepare("SELECT name FROM programs ORDER BY name LIMIT 20").all() as { name: string }[]).map((p) => p.name);
    throw new UsageError(`no program named ${JSON.stringify(name)}`, `Known programs: ${names.join(", ") || "(none: run `schedlab collect`)"}.`);
  }
  const runs = db
    .prepare("SELECT id, config, ingest_status, ingest_error FROM runs WHERE program_id = ? AND run_index = ? AND (? IS NULL OR config = ?) ORDER BY config")
    .all(program.id, index, config ?? null, config ?? null) as RunRow[];
  if (runs.length === 0) throw new UsageError(`${program.name} has no run ${index}${config ? ` in configuration ${config}` : ""}`, "`schedlab collect --runs N` records runs 0…N-1.");
  if (runs.length > 1) {
    throw new UsageError(`${program.name} run ${index} exists in several configurations`, `Pass --config with one of: ${runs.map((r) => r.config).join(", ")}.`);
  }
  const run = runs[0];
  if (run.ingest_status === null) throw new UsageError(`run ${index} of ${program.name} is not ingested yet`, "Run `schedlab ingest` first.");
  if (run.ingest_status === "error") {
    throw new UsageError(`the trace of run ${index} of ${program.name} could not be decoded: ${run.ingest_error ?? ""}`, "Re-collect the run with `schedlab collect --force`.");
  }
  return run.id;
}

function eventRows(db: SchedlabDatabase, runId: number, goroutine: string | undefined): EventRow[] {
  const goroutines = loadRunGoroutines(db, runId);
  const ids = new Map(goroutines.map((g) => [g.goroutine, g.canonicalId]));
  let only: number | undefined;
  if (goroutine !== undefined) {
    only = goroutines.find((g) => g.canonicalId === goroutine || String(g.goroutine) === goroutine)?.goroutine;
    if (only === undefined) {
      throw new UsageError(`run has no user goroutine ${JSON.stringify(goroutine)}`, "Pass a canonical id or goroutine number as shown by `schedlab events` without --goroutine.");
    }
  }
  const rows: EventRow[] = [];
  for (const r of iterateRunRecords(db, runId)) {
    if (only !== undefined && r.goroutine !== only) continue;
    rows.push({
      seq: r.seq,
      time: r.timeNs,
      event: r.kind,
      reason: r.reason,
      goroutine: ids.get(r.goroutine) ?? `g${r.goroutine}`,
      gid: r.goroutine,
      actor: r.actor === null ? null : (ids.get(r.actor) ?? `g${r.actor}`),
      actorGid: r.actor,
      site: r.site,
    });
  }
  return rows;
}

/**
 * A fixed-width table with goroutines as G<gid> (canonical ids would make rows hundreds
 * of characters wide) and a legend from G<gid> to canonical id above it; times in ms
 * since the trace started, sites with package directories dropped.
 */
export function renderTable(rows: readonly EventRow[]): string {
  const legend = new Map<number, string>();
  for (const r of rows) {
    legend.set(r.gid, r.goroutine);
    if (r.actorGid !== null && r.actor !== null) legend.set(r.actorGid, r.actor);
  }
  const legendLines = [...legend].sort((a, b) => a[0] - b[0]).map(([gid, id]) => `  G${gid}  ${id}`);
  const header = ["time(ms)", "actor", "subject", "event", "reason", "site"];
  const cells = rows.map((r) => [
    (r.time / 1e6).toFixed(6),
    r.actorGid === null ? "-" : `G${r.actorGid}`,
    `G${r.gid}`,
    r.event,
    r.reason,
    r.site === null ? "" : shortFunctionName(r.site),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: readonly string[]) => c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]))).join("  ").trimEnd();
  return `goroutines:\n${legendLines.join("\n")}\n\n${[line(header), ...cells.map(line)].join("\n")}\n${rows.length} event(s)\n`;
}
