// Reading decoded runs back: the API later stages (dataset, leaks) use to get events.

import type { SchedlabDatabase } from "../store/index.js";
import type { GoroutineInfo, GoroutineRecord, RecordKind } from "./types.js";

type EventRow = [number, number, RecordKind, number, number | null, string, string | null];

/**
 * All records of a run in seq order (one indexed range scan of the events primary key).
 * Returns [] for a run that is not ingested; check runs.ingest_status ('ok' or
 * 'truncated') to tell "no user events" from "not ingested".
 */
export function loadRunRecords(db: SchedlabDatabase, runId: number): GoroutineRecord[] {
  const rows = db
    .prepare("SELECT seq, time_ns, kind, gid, actor_gid, reason, site FROM events WHERE run_id = ? ORDER BY seq")
    .raw()
    .all(runId) as EventRow[];
  return rows.map(rowToRecord);
}

/** Streams a run's records in seq order without materialising them all (for large runs). */
export function* iterateRunRecords(db: SchedlabDatabase, runId: number): Generator<GoroutineRecord> {
  const statement = db
    .prepare("SELECT seq, time_ns, kind, gid, actor_gid, reason, site FROM events WHERE run_id = ? ORDER BY seq")
    .raw();
  for (const row of statement.iterate(runId)) yield rowToRecord(row as EventRow);
}

function rowToRecord(row: EventRow): GoroutineRecord {
  return { seq: row[0], timeNs: row[1], kind: row[2], goroutine: row[3], actor: row[4], reason: row[5], site: row[6] };
}

/** The user goroutines of a run, by goroutine id. */
export function loadRunGoroutines(db: SchedlabDatabase, runId: number): GoroutineInfo[] {
  const rows = db
    .prepare(
      "SELECT gid, canonical_id, parent_gid, entry, creation_site, is_root FROM goroutines WHERE run_id = ? ORDER BY gid",
    )
    .raw()
    .all(runId) as [number, string, number | null, string | null, string | null, number][];
  return rows.map(([goroutine, canonicalId, parent, entry, creationSite, isRoot]) => ({
    goroutine,
    canonicalId,
    parent,
    entry,
    creationSite,
    isRoot: isRoot === 1,
  }));
}

/** A GoBlock with reason "preempted" is a GC stack-scan suspension, not a real block (docs/events.md). */
export function isGcPreemption(record: GoroutineRecord): boolean {
  return record.kind === "GoBlock" && record.reason === "preempted";
}
