// Findings in SQLite (tables leak_findings and race_findings, docs/schema.md): each
// analysis replaces the program's rows in one transaction, so a reader sees the old or
// the new findings.

import { inTransaction, type SchedlabDatabase } from "../store/index.js";
import type { RaceFinding } from "./race.js";
import type { LeakFinding } from "./types.js";

/** Replaces the stored findings of program `programId` with `findings`. */
export function saveFindings(db: SchedlabDatabase, programId: number, findings: readonly LeakFinding[]): void {
  const remove = db.prepare("DELETE FROM leak_findings WHERE program_id = ?");
  const insert = db.prepare(
    `INSERT INTO leak_findings (program_id, goroutine, reason, kind, formal, creation_site, blocking_site,
       runs_seen, runs_blocked, p_unblock_upper, details, analysed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const now = new Date().toISOString();
  inTransaction(db, () => {
    remove.run(programId);
    for (const f of findings) {
      insert.run(
        programId,
        f.goroutine,
        f.reason,
        f.kind,
        f.formal ? 1 : 0,
        f.creationSite,
        f.blockingSite,
        f.runsSeen,
        f.runsBlocked,
        f.pUnblockUpper,
        JSON.stringify(f),
        now,
      );
    }
  });
}

/** The stored findings of a program, by goroutine id. */
export function loadFindings(db: SchedlabDatabase, programId: number): LeakFinding[] {
  const rows = db
    .prepare("SELECT details FROM leak_findings WHERE program_id = ? ORDER BY goroutine")
    .all(programId) as { details: string }[];
  return rows.map((r) => JSON.parse(r.details) as LeakFinding);
}

/**
 * The programs whose stored findings belong to a bug whose fingerprint starts with
 * `prefix` (lowercase hex), by name: where `schedlab show` looks first.
 */
export function programsWithBug(db: SchedlabDatabase, prefix: string): string[] {
  const rows = db
    .prepare(
      `SELECT DISTINCT p.name FROM leak_findings f JOIN programs p ON p.id = f.program_id
       WHERE substr(json_extract(f.details, '$.bug'), 1, ?) = ? ORDER BY p.name`,
    )
    .all(prefix.length, prefix) as { name: string }[];
  return rows.map((r) => r.name);
}

/** Replaces the stored race findings of program `programId` with `races`. */
export function saveRaceFindings(db: SchedlabDatabase, programId: number, races: readonly RaceFinding[]): void {
  const remove = db.prepare("DELETE FROM race_findings WHERE program_id = ?");
  const insert = db.prepare(
    `INSERT INTO race_findings (program_id, first_frame, second_frame, runs, runs_checked, details, analysed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const now = new Date().toISOString();
  inTransaction(db, () => {
    remove.run(programId);
    for (const r of races)
      insert.run(programId, r.frames[0], r.frames[1], r.runs, r.runsChecked, JSON.stringify(r), now);
  });
}

/** The stored race findings of a program, most frequent first. */
export function loadRaceFindings(db: SchedlabDatabase, programId: number): RaceFinding[] {
  const rows = db
    .prepare("SELECT details FROM race_findings WHERE program_id = ? ORDER BY runs DESC, first_frame, second_frame")
    .all(programId) as { details: string }[];
  return rows.map((r) => JSON.parse(r.details) as RaceFinding);
}
