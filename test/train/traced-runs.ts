// Test helper: builds the fixture Go programs, runs each several times under the execution
// tracer, records the runs in a real SQLite database and ingests the traces with the trace
// stage, then loads them back with the dataset stage: real RunRecords to train on. Students
// are trained through the real path (the dataset stage's split, trainFromDatabase), also on
// databases derived from the traced one (mixedDatabase).

import { execa } from "execa";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventSequence, loadProgramRuns, selectPrograms } from "../../src/dataset/index.js";
import type { RunRecords } from "../../src/dataset/types.js";
import { openDatabase, type SchedlabDatabase } from "../../src/store/index.js";
import { ingestRuns } from "../../src/trace/index.js";
import { trainFromDatabase, type TrainedStudent, type TrainFromDatabaseOptions } from "../../src/train/index.js";

export const FIXTURE_DIR = fileURLToPath(new URL("./fixtures/", import.meta.url));
export const FIXTURE_PROGRAMS = ["condqueue", "mutexcounter", "pingpong", "pipeline", "workerpool"] as const;

export interface TracedCorpus {
  /** The database file holding programs, runs and their decoded events. */
  readonly dbPath: string;
  readonly runs: RunRecords[];
  readonly programDirs: Map<string, string>;
  readonly scratch: string;
}

/** Traces each program `runsPerProgram` times with GOMAXPROCS `procs`. */
export async function traceFixtures(
  programs: readonly string[],
  runsPerProgram: number,
  procs = 2,
): Promise<TracedCorpus> {
  const scratch = mkdtempSync(join(tmpdir(), "schedlab-train-"));
  const dbPath = join(scratch, "schedlab.db");
  const db = openDatabase(dbPath);
  try {
    const programDirs = new Map<string, string>();
    const now = new Date().toISOString();
    for (const program of programs) {
      const dir = join(FIXTURE_DIR, program);
      programDirs.set(program, dir);
      const binary = join(scratch, program);
      await execa("go", ["build", "-o", binary, "main.go"], { cwd: dir });
      const programId = Number(
        db
          .prepare("INSERT INTO programs (name, root, dir, kind, source_hash) VALUES (?, ?, ?, 'main', 'fixture')")
          .run(program, FIXTURE_DIR, program).lastInsertRowid,
      );
      for (let i = 0; i < runsPerProgram; i++) {
        const trace = join(scratch, `${program}-${i}.trace`);
        await execa(binary, [trace], { env: { GOMAXPROCS: String(procs) }, timeout: 30_000 });
        db.prepare(
          "INSERT INTO runs (program_id, config, procs, run_index, outcome, exit_code, trace_path, created_at) VALUES (?, ?, ?, ?, 'ok', 0, ?, ?)",
        ).run(programId, `procs-${procs}`, procs, i, trace, now);
      }
    }
    const summary = await ingestRuns(db);
    if (summary.errors > 0)
      throw new Error(
        `fixture traces failed to ingest: ${JSON.stringify(summary.runs.filter((r) => r.status === "error"))}`,
      );
    const runs = selectPrograms(db).flatMap((p) => loadProgramRuns(db, p));
    return { dbPath, runs, programDirs, scratch };
  } finally {
    db.close();
  }
}

/** Trains a student on the database at `dbPath` the way `schedlab train` does. */
export async function trainOnDatabase(dbPath: string, options: TrainFromDatabaseOptions): Promise<TrainedStudent> {
  const db = openDatabase(dbPath);
  try {
    return await trainFromDatabase(db, options);
  } finally {
    db.close();
  }
}

/** A program of a mixed database: the runs of fixture programs `from`, pooled under `name`. */
export interface MixedProgram {
  readonly name: string;
  readonly from: readonly string[];
}

function columnsOf(db: SchedlabDatabase, table: string, except: readonly string[]): string {
  const columns = db.prepare(`PRAGMA corpus.table_info(${table})`).all() as { name: string }[];
  return columns
    .map((c) => c.name)
    .filter((c) => !except.includes(c))
    .join(", ");
}

/**
 * A new database whose programs each pool the traced runs of several fixture programs, every
 * run cut to the same number of events (the fewest any of them has), so that under a pooled
 * abstraction every state mixes the programs. Rows are copied from the corpus database.
 */
export function mixedDatabase(corpus: TracedCorpus, programs: readonly MixedProgram[]): string {
  const dbPath = join(mkdtempSync(join(corpus.scratch, "mixed-")), "schedlab.db");
  const db = openDatabase(dbPath);
  try {
    db.prepare("ATTACH DATABASE ? AS corpus").run(corpus.dbPath);
    db.exec("INSERT OR IGNORE INTO trace_strings SELECT * FROM corpus.trace_strings");
    const runColumns = columnsOf(db, "runs", ["id", "program_id", "run_index"]);
    const recordColumns = columnsOf(db, "event_records", ["run_id"]);
    const goroutineColumns = columnsOf(db, "goroutines", ["run_id"]);
    const copyRun = db.prepare(
      `INSERT INTO runs (program_id, run_index, ${runColumns}) SELECT ?, ?, ${runColumns} FROM corpus.runs WHERE id = ?`,
    );
    const copyRecords = db.prepare(
      `INSERT INTO event_records (run_id, ${recordColumns}) SELECT ?, ${recordColumns} FROM corpus.event_records WHERE run_id = ? AND seq <= ?`,
    );
    const copyGoroutines = db.prepare(
      `INSERT INTO goroutines (run_id, ${goroutineColumns}) SELECT ?, ${goroutineColumns} FROM corpus.goroutines WHERE run_id = ?`,
    );
    for (const program of programs) {
      const runs = corpus.runs.filter((r) => program.from.includes(r.program));
      const events = Math.min(...runs.map((r) => eventSequence(r.records).length));
      const programId = Number(
        db
          .prepare("INSERT INTO programs (name, root, dir, kind, source_hash) VALUES (?, ?, ?, 'main', 'mixed')")
          .run(program.name, FIXTURE_DIR, program.name).lastInsertRowid,
      );
      runs.forEach((run, i) => {
        const runId = Number(copyRun.run(programId, i, run.runId).lastInsertRowid);
        copyRecords.run(runId, run.runId, run.records[eventSequence(run.records)[events - 1]].seq);
        copyGoroutines.run(runId, run.runId);
      });
    }
    db.exec("DETACH DATABASE corpus");
    return dbPath;
  } finally {
    db.close();
  }
}
