// Reading the runs the detector needs from the database: per program, every ingested run
// with its records and goroutines. Uses the trace stage's loaders, never its tables' internals.

import { UsageError } from "../errors.js";
import type { Manifest } from "../corpus/manifest.js";
import type { SchedlabDatabase } from "../store/index.js";
import { loadRunGoroutines, loadRunRecords } from "../trace/index.js";
import type { LeakRun, ProgramRuns, RunEnd } from "./types.js";

export interface StoredProgram {
  readonly id: number;
  readonly name: string;
  readonly kind: "main" | "test";
  /** The manifest recorded at collection, or null. */
  readonly manifest: Manifest | null;
}

const RUNTIME_DEADLOCK = /all goroutines are asleep - deadlock!/;

/** Programs in the database (one name, or all), by name. Unknown names are a UsageError. */
export function storedPrograms(db: SchedlabDatabase, name?: string): StoredProgram[] {
  const rows = db
    .prepare(`SELECT id, name, kind, manifest FROM programs ${name === undefined ? "" : "WHERE name = ?"} ORDER BY name`)
    .all(...(name === undefined ? [] : [name])) as { id: number; name: string; kind: "main" | "test"; manifest: string | null }[];
  if (name !== undefined && rows.length === 0) {
    throw new UsageError(`no program named ${JSON.stringify(name)} in the database`, "Run `schedlab collect` on it first, or check the name with `schedlab dist --abstraction split`.");
  }
  return rows.map((r) => ({ id: r.id, name: r.name, kind: r.kind, manifest: parseManifest(r.manifest) }));
}

function parseManifest(text: string | null): Manifest | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as Manifest;
  } catch {
    return null;
  }
}

/**
 * The ingested runs of a program (ingest_status 'ok' or 'truncated'; build errors and
 * undecodable traces have nothing to say), in run order.
 */
export function loadProgramRuns(db: SchedlabDatabase, program: StoredProgram): ProgramRuns {
  const rows = db
    .prepare(
      `SELECT id, run_index, config, outcome, stderr_tail FROM runs
       WHERE program_id = ? AND ingest_status IN ('ok', 'truncated') AND outcome != 'build-error'
       ORDER BY config, run_index`,
    )
    .all(program.id) as { id: number; run_index: number; config: string; outcome: RunEnd; stderr_tail: string | null }[];
  const runs: LeakRun[] = rows.map((row) => ({
    runId: row.id,
    runIndex: row.run_index,
    config: row.config,
    outcome: row.outcome,
    runtimeDeadlock: RUNTIME_DEADLOCK.test(row.stderr_tail ?? ""),
    records: loadRunRecords(db, row.id),
    goroutines: loadRunGoroutines(db, row.id),
  }));
  return { program: program.name, runs };
}
