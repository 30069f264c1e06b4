// Writes hand-made programs, runs and records straight into a temp schedlab database,
// in the tables the trace stage fills (schema in src/store/schema.ts).

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/index.js";
import type { SchedlabDatabase } from "../../src/store/index.js";
import type { GoroutineRecord } from "../../src/core/index.js";

export function scratchDatabase(): { db: SchedlabDatabase; file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "schedlab-dataset-"));
  const file = join(dir, "schedlab.db");
  return { db: openDatabase(file), file, dir };
}

export function insertProgram(
  db: SchedlabDatabase,
  name: string,
  manifest: object | null = null,
  dir = `/nonexistent/${name}`,
): number {
  const info = db
    .prepare(
      "INSERT INTO programs (name, root, dir, kind, source_hash, manifest) VALUES (?, '/nonexistent', ?, 'main', 'h', ?)",
    )
    .run(name, dir, manifest === null ? null : JSON.stringify(manifest));
  return Number(info.lastInsertRowid);
}

export function insertRun(
  db: SchedlabDatabase,
  programId: number,
  runIndex: number,
  records: readonly GoroutineRecord[],
  status: "ok" | "truncated" | "error" = "ok",
): number {
  const info = db
    .prepare(
      "INSERT INTO runs (program_id, config, procs, run_index, outcome, trace_sha256, ingest_status, created_at) " +
        "VALUES (?, 'procs-2', 2, ?, 'ok', ?, ?, '2026-01-01')",
    )
    .run(programId, runIndex, `sha-${programId}-${runIndex}`, status);
  const runId = Number(info.lastInsertRowid);
  const insert = db.prepare(
    "INSERT INTO events (run_id, seq, time_ns, kind, gid, actor_gid, reason, site) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  for (const r of records) insert.run(runId, r.seq, r.timeNs, r.kind, r.goroutine, r.actor, r.reason, r.site);
  const gids = [...new Set(records.map((r) => r.goroutine))];
  const insertG = db.prepare("INSERT INTO goroutines (run_id, gid, canonical_id, is_root) VALUES (?, ?, ?, ?)");
  gids.forEach((gid, i) => insertG.run(runId, gid, i === 0 ? "main.main" : `main.main/w#${i}`, i === 0 ? 1 : 0));
  return runId;
}

/** Clean manifest / leak manifest for split tests. */
export const cleanManifest = {
  kind: "main",
  pattern: "p",
  outcome: "clean",
  bugClass: null,
  expected: [],
  showsOn: "never",
  tags: ["chan"],
  description: "d",
};
export const leakManifest = {
  kind: "main",
  pattern: "p",
  outcome: "leak",
  bugClass: "select",
  expected: [{ creator: "main.main", site: "main.go:3", reason: "select" }],
  showsOn: "every",
  tags: ["select"],
  description: "d",
};
