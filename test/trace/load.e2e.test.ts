// The compact events layout on real SQLite files: a real trace ingested and read back
// through every loader, the events view and its insert trigger against the kind codes,
// interned strings shared across runs, and the in-place conversion of a database that
// still has the original events table.

import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SchemaVersionError } from "../../src/errors.js";
import { openDatabase, type SchedlabDatabase } from "../../src/store/index.js";
import {
  forEachRunRecord,
  ingestRuns,
  iterateRunRecords,
  lastRunRecord,
  loadRunRecords,
} from "../../src/trace/index.js";
import { recordKindCode, RECORD_KINDS, type GoroutineRecord } from "../../src/core/index.js";
import { decodeAll, fixture } from "./helpers.js";

function scratch(): string {
  return mkdtempSync(join(tmpdir(), "schedlab-load-"));
}

function addRun(db: SchedlabDatabase, name: string, index: number, tracePath: string | null): number {
  const program = db.prepare("SELECT id FROM programs WHERE name = ?").pluck().get(name) as number | undefined;
  const programId =
    program ??
    Number(
      db
        .prepare("INSERT INTO programs (name, root, dir, kind, source_hash) VALUES (?, '/r', '/r/p', 'main', 'x')")
        .run(name).lastInsertRowid,
    );
  return Number(
    db
      .prepare(
        "INSERT INTO runs (program_id, config, procs, run_index, outcome, trace_path, created_at) VALUES (?, 'procs-1', 1, ?, 'ok', ?, '2026-01-01T00:00:00Z')",
      )
      .run(programId, index, tracePath).lastInsertRowid,
  );
}

describe("event_records and the loaders", () => {
  it("a real trace ingested twice reads back identically through every loader and the events view, with strings stored once", async () => {
    const dir = scratch();
    copyFileSync(fixture("tree.trace"), join(dir, "tree.trace"));
    const db = openDatabase(join(dir, "schedlab.db"));
    try {
      const first = addRun(db, "tree", 0, "tree.trace");
      const second = addRun(db, "tree", 1, "tree.trace");
      await ingestRuns(db);
      const decoded = await decodeAll(fixture("tree.trace"), { mode: "main" });
      const expected = decoded.records;
      expect(expected.length).toBe(57);
      expect(loadRunRecords(db, first)).toEqual(expected);
      expect(loadRunRecords(db, second)).toEqual(expected);
      expect([...iterateRunRecords(db, first)]).toEqual(expected);
      const visited: GoroutineRecord[] = [];
      expect(forEachRunRecord(db, first, (r) => visited.push(r))).toBe(57);
      expect(visited).toEqual(expected);
      expect(lastRunRecord(db, first)).toEqual({ seq: 56, timeNs: expected[56].timeNs });
      expect(lastRunRecord(db, 999)).toBeNull();

      const view = db
        .prepare(
          "SELECT seq, time_ns AS timeNs, kind, gid AS goroutine, actor_gid AS actor, reason, site, stack FROM events WHERE run_id = ? ORDER BY seq",
        )
        .all(first);
      expect(view).toEqual(expected.map((r) => ({ ...r, stack: r.stack ?? null })));
      // Every distinct reason, site and stack once, whatever the number of runs, and so the
      // goroutines' canonical ids, entries and creation sites (interned since schema version 7).
      const distinct = new Set([
        ...expected.flatMap((r) => [
          r.reason,
          ...(r.site === null ? [] : [r.site]),
          ...(typeof r.stack === "string" ? [r.stack] : []),
        ]),
        ...decoded.summary.goroutines.flatMap((g) =>
          [g.canonicalId, g.entry, g.creationSite].filter((t) => t !== null),
        ),
      ]);
      expect(db.prepare("SELECT count(*) FROM trace_strings").pluck().get()).toBe(
        distinct.size + (distinct.has("") ? 0 : 1),
      );
      expect(db.prepare("SELECT DISTINCT typeof(kind), typeof(reason) FROM event_records").raw().all()).toEqual([
        ["integer", "integer"],
      ]);
    } finally {
      db.close();
    }
  });

  it("codes every record kind as its RECORD_KINDS index, the same through the events view and its insert trigger", () => {
    const db = openDatabase(join(scratch(), "schedlab.db"));
    try {
      const run = addRun(db, "kinds", 0, null);
      const insert = db.prepare(
        "INSERT INTO events (run_id, seq, time_ns, kind, gid, actor_gid, reason, site) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      );
      RECORD_KINDS.forEach((kind, seq) =>
        insert.run(
          run,
          seq,
          seq * 10,
          kind,
          1,
          seq % 2 === 0 ? null : 2,
          kind === "GoBlock" ? "select" : "",
          kind === "GoBlock" ? "main.f main.go:3" : null,
        ),
      );
      expect(db.prepare("SELECT kind FROM event_records WHERE run_id = ? ORDER BY seq").pluck().all(run)).toEqual(
        RECORD_KINDS.map(recordKindCode),
      );
      expect(RECORD_KINDS.map(recordKindCode)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(loadRunRecords(db, run).map((r) => [r.kind, r.reason, r.site, r.actor])).toEqual(
        RECORD_KINDS.map((kind, seq) => [
          kind,
          kind === "GoBlock" ? "select" : "",
          kind === "GoBlock" ? "main.f main.go:3" : null,
          seq % 2 === 0 ? null : 2,
        ]),
      );
      expect(() => insert.run(run, 99, 0, "GoSwitch", 1, null, "", null)).toThrow(/NOT NULL/);
      db.prepare("DELETE FROM events WHERE run_id = ? AND seq >= 5").run(run);
      expect(loadRunRecords(db, run).map((r) => r.kind)).toEqual(RECORD_KINDS.slice(0, 5));
    } finally {
      db.close();
    }
  });

  it("converts a database that still has the original events table on a writable open, and refuses it read-only with what to do", () => {
    const file = join(scratch(), "schedlab.db");
    openDatabase(file).close();
    // Recreate the original layout by hand, as a schedlab before event_records wrote it.
    const raw = new Database(file);
    raw.exec(`DROP TRIGGER events_insert; DROP TRIGGER events_delete; DROP VIEW events; DROP TABLE event_records; DROP TABLE trace_strings;
      CREATE TABLE events (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, seq INTEGER NOT NULL, time_ns INTEGER NOT NULL,
        kind TEXT NOT NULL, gid INTEGER NOT NULL, actor_gid INTEGER, reason TEXT NOT NULL DEFAULT '', site TEXT, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
      INSERT INTO programs (id, name, root, dir, kind, source_hash) VALUES (1, 'p', '/r', '/r/p', 'main', 'x');
      INSERT INTO runs (id, program_id, config, procs, run_index, outcome, created_at) VALUES (7, 1, 'procs-1', 1, 0, 'ok', 't');
      INSERT INTO events VALUES (7, 0, 0, 'Initial', 1, NULL, 'Running', NULL), (7, 1, 5, 'GoCreate', 2, 1, '', 'main.main main.go:9'),
        (7, 2, 9, 'GoBlock', 2, 2, 'chan receive', 'main.worker main.go:4'), (7, 3, 12, 'GoEnd', 1, 1, '', NULL);`);
    raw.close();
    expect(() => openDatabase(file, { readonly: true })).toThrow(SchemaVersionError);
    const db = openDatabase(file);
    try {
      expect(loadRunRecords(db, 7)).toEqual([
        { seq: 0, timeNs: 0, kind: "Initial", goroutine: 1, actor: null, reason: "Running", site: null },
        { seq: 1, timeNs: 5, kind: "GoCreate", goroutine: 2, actor: 1, reason: "", site: "main.main main.go:9" },
        {
          seq: 2,
          timeNs: 9,
          kind: "GoBlock",
          goroutine: 2,
          actor: 2,
          reason: "chan receive",
          site: "main.worker main.go:4",
        },
        { seq: 3, timeNs: 12, kind: "GoEnd", goroutine: 1, actor: 1, reason: "", site: null },
      ]);
      expect(db.prepare("SELECT type FROM sqlite_master WHERE name = 'events'").pluck().get()).toBe("view");
      expect(
        db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'events_before_compaction'").pluck().get(),
      ).toBe(0);
    } finally {
      db.close();
    }
    openDatabase(file, { readonly: true }).close();
  });
});
