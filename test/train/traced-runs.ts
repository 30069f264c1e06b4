// Test helper: builds the fixture Go programs, runs each several times under the execution
// tracer, records the runs in a real SQLite database and ingests the traces with the trace
// stage, then loads them back with the dataset stage: real RunRecords to train on.

import { execa } from "execa";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadProgramRuns, selectPrograms } from "../../src/dataset/index.js";
import type { RunRecords } from "../../src/dataset/types.js";
import { openDatabase } from "../../src/store/index.js";
import { ingestRuns } from "../../src/trace/index.js";

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
export async function traceFixtures(programs: readonly string[], runsPerProgram: number, procs = 2): Promise<TracedCorpus> {
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
        db.prepare("INSERT INTO programs (name, root, dir, kind, source_hash) VALUES (?, ?, ?, 'main', 'fixture')").run(program, FIXTURE_DIR, program).lastInsertRowid,
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
    if (summary.errors > 0) throw new Error(`fixture traces failed to ingest: ${JSON.stringify(summary.runs.filter((r) => r.status === "error"))}`);
    const runs = selectPrograms(db).flatMap((p) => loadProgramRuns(db, p));
    return { dbPath, runs, programDirs, scratch };
  } finally {
    db.close();
  }
}
