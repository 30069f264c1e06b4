// `schedlab events`: the decoded event stream of one run, for a person or as JSON. The run
// is streamed from the database and written as it is read, so a run of millions of
// events prints in flat memory.

import type { Command } from "commander";
import { parseIntegerOption } from "./options.js";
import { UsageError } from "../errors.js";
import { openDatabase, type SchedlabDatabase } from "../store/index.js";
import { iterateRunRecords, loadRunGoroutines, shortFunctionName } from "../trace/index.js";

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
    .action(async (flags: EventsFlags) => {
      const index = parseIntegerOption("--run", flags.run, 0);
      const db = openDatabase(flags.db, { readonly: true });
      try {
        const runId = findRun(db, flags.program, index, flags.config);
        const out = stdoutWriter();
        if (flags.json) await writeJson(db, runId, flags.goroutine, out);
        else await writeTable(db, runId, flags.goroutine, out);
        await out.end();
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
    { id: number; name: string } | undefined;
  if (program === undefined) {
    const names = (db.prepare("SELECT name FROM programs ORDER BY name LIMIT 20").all() as { name: string }[]).map(
      (p) => p.name,
    );
    throw new UsageError(
      `no program named ${JSON.stringify(name)}`,
      `Known programs: ${names.join(", ") || "(none: run `schedlab collect`)"}.`,
    );
  }
  const runs = db
    .prepare(
      "SELECT id, config, ingest_status, ingest_error FROM runs WHERE program_id = ? AND run_index = ? AND (? IS NULL OR config = ?) ORDER BY config",
    )
    .all(program.id, index, config ?? null, config ?? null) as RunRow[];
  if (runs.length === 0)
    throw new UsageError(
      `${program.name} has no run ${index}${config ? ` in configuration ${config}` : ""}`,
      "`schedlab collect --runs N` records runs 0…N-1.",
    );
  if (runs.length > 1) {
    throw new UsageError(
      `${program.name} run ${index} exists in several configurations`,
      `Pass --config with one of: ${runs.map((r) => r.config).join(", ")}.`,
    );
  }
  const run = runs[0];
  if (run.ingest_status === null)
    throw new UsageError(`run ${index} of ${program.name} is not ingested yet`, "Run `schedlab ingest` first.");
  if (run.ingest_status === "error") {
    throw new UsageError(
      `the trace of run ${index} of ${program.name} could not be decoded: ${run.ingest_error ?? ""}`,
      "Re-collect the run with `schedlab collect --force`.",
    );
  }
  return run.id;
}

/**
 * Text for stdout, gathered into chunks of about 64 KiB. `full` says to await `flush`
 * before writing more (a pipe to a slower reader queues writes in memory until drained);
 * `closed` says the reader went away (EPIPE, e.g. `| head`): stop quietly, as Unix tools do.
 */
interface StdoutWriter {
  write(text: string): void;
  readonly full: boolean;
  readonly closed: boolean;
  flush(): Promise<void>;
  /** Flushes the rest and stops listening to stdout's errors. */
  end(): Promise<void>;
}

function stdoutWriter(): StdoutWriter {
  let chunks: string[] = [];
  let size = 0;
  let closed = false;
  let failure: Error | undefined;
  const onError = (error: NodeJS.ErrnoException): void => {
    if (error.code === "EPIPE") closed = true;
    else failure ??= error;
  };
  process.stdout.on("error", onError);
  const flush = async (): Promise<void> => {
    const text = chunks.join("");
    chunks = [];
    size = 0;
    if (failure !== undefined) throw failure;
    if (closed || text === "") return;
    if (!process.stdout.write(text)) {
      await new Promise<void>((done) => {
        const settle = (): void => {
          process.stdout.off("drain", settle);
          process.stdout.off("error", settle);
          done();
        };
        process.stdout.once("drain", settle);
        process.stdout.once("error", settle);
      });
    }
    if (failure !== undefined) throw failure;
  };
  return {
    write(text) {
      chunks.push(text);
      size += text.length;
    },
    get full() {
      return size >= 1 << 16;
    },
    get closed() {
      return closed;
    },
    flush,
    async end() {
      try {
        await flush();
      } finally {
        process.stdout.off("error", onError);
      }
    },
  };
}

/** The rows of a run (only goroutine `goroutine`'s, when given), streamed; an unknown goroutine is a UsageError at the first step. */
function* eventRows(db: SchedlabDatabase, runId: number, goroutine: string | undefined): Generator<EventRow> {
  const goroutines = loadRunGoroutines(db, runId);
  const ids = new Map(goroutines.map((g) => [g.goroutine, g.canonicalId]));
  let only: number | undefined;
  if (goroutine !== undefined) {
    only = goroutines.find((g) => g.canonicalId === goroutine || String(g.goroutine) === goroutine)?.goroutine;
    if (only === undefined) {
      throw new UsageError(
        `run has no user goroutine ${JSON.stringify(goroutine)}`,
        "Pass a canonical id or goroutine number as shown by `schedlab events` without --goroutine.",
      );
    }
  }
  for (const r of iterateRunRecords(db, runId)) {
    if (only !== undefined && r.goroutine !== only) continue;
    yield {
      seq: r.seq,
      time: r.timeNs,
      event: r.kind,
      reason: r.reason,
      goroutine: ids.get(r.goroutine) ?? `g${r.goroutine}`,
      gid: r.goroutine,
      actor: r.actor === null ? null : (ids.get(r.actor) ?? `g${r.actor}`),
      actorGid: r.actor,
      site: r.site,
    };
  }
}

/** The JSON array `JSON.stringify(rows, null, 1)` would print, written row by row. */
async function writeJson(
  db: SchedlabDatabase,
  runId: number,
  goroutine: string | undefined,
  out: StdoutWriter,
): Promise<void> {
  let n = 0;
  for (const row of eventRows(db, runId, goroutine)) {
    out.write(n++ === 0 ? "[\n" : ",\n");
    // One element as it sits, indented, inside the array.
    out.write(JSON.stringify([row], null, 1).slice(2, -2));
    if (out.full) await out.flush();
    if (out.closed) return;
  }
  out.write(n === 0 ? "[]\n" : "\n]\n");
}

const TABLE_HEADER = ["time(ms)", "actor", "subject", "event", "reason", "site"];

function tableCells(r: EventRow): string[] {
  return [
    (r.time / 1e6).toFixed(6),
    r.actorGid === null ? "-" : `G${r.actorGid}`,
    `G${r.gid}`,
    r.event,
    r.reason,
    r.site === null ? "" : shortFunctionName(r.site),
  ];
}

/** What the table's layout needs from all rows: the legend and the column widths. */
interface TableLayout {
  readonly legend: Map<number, string>;
  readonly widths: number[];
  rows: number;
}

function emptyLayout(): TableLayout {
  return { legend: new Map(), widths: TABLE_HEADER.map((h) => h.length), rows: 0 };
}

function addToLayout(layout: TableLayout, r: EventRow): void {
  layout.legend.set(r.gid, r.goroutine);
  if (r.actorGid !== null && r.actor !== null) layout.legend.set(r.actorGid, r.actor);
  tableCells(r).forEach((c, i) => {
    if (c.length > layout.widths[i]) layout.widths[i] = c.length;
  });
  layout.rows++;
}

function tableLine(widths: readonly number[], cells: readonly string[]): string {
  return cells
    .map((v, i) => (i === cells.length - 1 ? v : v.padEnd(widths[i])))
    .join("  ")
    .trimEnd();
}

function legendLines(layout: TableLayout): string {
  return [...layout.legend]
    .sort((a, b) => a[0] - b[0])
    .map(([gid, id]) => `  G${gid}  ${id}`)
    .join("\n");
}

/**
 * A fixed-width table with goroutines as G<gid> (canonical ids would make rows hundreds
 * of characters wide) and a legend from G<gid> to canonical id above it; times in ms
 * since the trace started, sites with package directories dropped. Two streamed passes
 * over the run: the layout (legend, column widths), then the lines.
 */
async function writeTable(
  db: SchedlabDatabase,
  runId: number,
  goroutine: string | undefined,
  out: StdoutWriter,
): Promise<void> {
  const layout = emptyLayout();
  for (const row of eventRows(db, runId, goroutine)) addToLayout(layout, row);
  out.write(`goroutines:\n${legendLines(layout)}\n\n${tableLine(layout.widths, TABLE_HEADER)}`);
  for (const row of eventRows(db, runId, goroutine)) {
    out.write(`\n${tableLine(layout.widths, tableCells(row))}`);
    if (out.full) await out.flush();
    if (out.closed) return;
  }
  out.write(`\n${layout.rows} event(s)\n`);
}
