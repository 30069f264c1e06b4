// Stage bookkeeping of the pipeline: content hashes of stage inputs and the
// pipeline_stages table that remembers, per stage, the hash it last completed with.

import { createHash } from "node:crypto";
import type { SchedlabDatabase } from "../store/index.js";

/** A stage's last completion: the hash of its inputs and what it produced. */
export interface StageRecord {
  readonly inputHash: string;
  readonly output: unknown;
  readonly elapsedMs: number;
}

/** sha256 (hex) of a JSON value (through `replacer`, if given); object keys are hashed in insertion order, so build inputs deterministically. */
export function contentHash(value: unknown, replacer?: (key: string, value: unknown) => unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(value, replacer) ?? "undefined")
    .digest("hex");
}

export function readStage(db: SchedlabDatabase, stage: string): StageRecord | null {
  const row = db.prepare("SELECT input_hash, output, elapsed_ms FROM pipeline_stages WHERE stage = ?").get(stage) as
    { input_hash: string; output: string; elapsed_ms: number } | undefined;
  if (row === undefined) return null;
  return { inputHash: row.input_hash, output: JSON.parse(row.output) as unknown, elapsedMs: row.elapsed_ms };
}

export function writeStage(db: SchedlabDatabase, stage: string, record: StageRecord): void {
  db.prepare(
    "INSERT INTO pipeline_stages (stage, input_hash, output, elapsed_ms, completed_at) VALUES (?, ?, ?, ?, ?) " +
      "ON CONFLICT(stage) DO UPDATE SET input_hash = excluded.input_hash, output = excluded.output, " +
      "elapsed_ms = excluded.elapsed_ms, completed_at = excluded.completed_at",
  ).run(stage, record.inputHash, JSON.stringify(record.output), Math.round(record.elapsedMs), new Date().toISOString());
}

/** Forgets every stage, so the next pipeline run redoes them all (collect still resumes its runs). */
export function clearStages(db: SchedlabDatabase): void {
  db.prepare("DELETE FROM pipeline_stages").run();
}

/**
 * Fingerprint of the decoded data every analysis stage reads: each run's id, trace hash
 * and ingest status. A new, re-collected or re-ingested run changes it.
 */
export function ingestedDataHash(db: SchedlabDatabase): string {
  const rows = db.prepare("SELECT id, program_id, trace_sha256, ingest_status FROM runs ORDER BY id").all();
  return contentHash(rows);
}
