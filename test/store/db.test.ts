import Database from "better-sqlite3";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SchemaVersionError, DatabaseUnavailableError } from "../../src/errors.js";
import { openDatabase, SCHEMA_SQL, SCHEMA_VERSION } from "../../src/store/index.js";
import { loadRunGoroutines } from "../../src/trace/index.js";

const scratch = () => mkdtempSync(join(tmpdir(), "schedlab-db-"));

/** The hint of the SchedlabError thrown by `open`. */
function hintOf(open: () => unknown): string {
  try {
    open();
  } catch (error) {
    return (error as { hint?: string }).hint ?? "";
  }
  throw new Error("expected an error");
}

describe("openDatabase", () => {
  it("creates a new database stamped with the current schema version", () => {
    const file = join(scratch(), "new.db");
    const db = openDatabase(file);
    const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string };
    expect(Number(row.value)).toBe(SCHEMA_VERSION);
    db.close();
    // Reopening is idempotent.
    openDatabase(file).close();
  });

  it("refuses an older schema version with advice to re-collect", () => {
    const file = join(scratch(), "old.db");
    const raw = new Database(file);
    raw.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema_version', '0');",
    );
    raw.close();
    expect(() => openDatabase(file)).toThrow(SchemaVersionError);
    expect(hintOf(() => openDatabase(file))).toMatch(/older schedlab/);
  });

  it("upgrades a version-3 database in place on a writable open, its runs stored as events; a read-only open says to write once", () => {
    const file = join(scratch(), "v3.db");
    // Version 3 is version 4 without runs.store and run_end_states.
    const v3 = version4Sql()
      .replace(/\n\s*-- What ingest kept[^]*?store\s+TEXT NOT NULL[^\n]*\n/, "\n")
      .replace(/CREATE TABLE IF NOT EXISTS run_end_states \([^;]*\);/, "");
    expect(v3).not.toMatch(/\bstore\s+TEXT/);
    expect(v3).not.toContain("run_end_states (");
    const raw = new Database(file);
    raw.exec(v3);
    raw.exec(`INSERT INTO meta VALUES ('schema_version', '3');
      INSERT INTO programs (id, name, root, dir, kind, source_hash) VALUES (1, 'p', '/r', '/r/p', 'main', 'h');
      INSERT INTO runs (id, program_id, config, procs, run_index, outcome, ingest_status, created_at) VALUES (7, 1, 'procs-2', 2, 0, 'ok', 'ok', 'now');`);
    raw.close();
    expect(hintOf(() => openDatabase(file, { readonly: true }))).toMatch(/writing command/);
    const db = openDatabase(file);
    try {
      expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
        String(SCHEMA_VERSION),
      );
      expect(db.prepare("SELECT id, store FROM runs").all()).toEqual([{ id: 7, store: "events" }]);
      expect(db.prepare("SELECT count(*) FROM run_end_states").pluck().get()).toBe(0);
      expect(() => db.prepare("UPDATE runs SET store = 'nothing'").run()).toThrow(/CHECK/);
    } finally {
      db.close();
    }
    openDatabase(file, { readonly: true }).close();
  });

  it("upgrades a version-4 database in place: the runs keep their rows, the new columns are NULL", () => {
    const file = join(scratch(), "v4.db");
    const raw = new Database(file);
    raw.exec(version4Sql());
    raw.exec(`INSERT INTO meta VALUES ('schema_version', '4');
      INSERT INTO programs (id, name, root, dir, kind, source_hash) VALUES (1, 'p', '/r', '/r/p', 'test', 'h');
      INSERT INTO runs (id, program_id, config, procs, run_index, outcome, ingest_status, created_at) VALUES (3, 1, 'procs-2', 2, 0, 'timeout', 'ok', 'now');`);
    raw.close();
    expect(hintOf(() => openDatabase(file, { readonly: true }))).toMatch(/writing command/);
    const db = openDatabase(file);
    try {
      expect(
        db.prepare("SELECT id, stop_reason, output_digest, untraced, leak_profile, store FROM runs").all(),
      ).toEqual([
        { id: 3, stop_reason: null, output_digest: null, untraced: null, leak_profile: null, store: "events" },
      ]);
      expect(db.prepare("SELECT count(*) FROM runtime_goroutines").pluck().get()).toBe(0);
      expect(() => db.prepare("UPDATE runs SET stop_reason = 'tired'").run()).toThrow(/CHECK/);
    } finally {
      db.close();
    }
  });

  it("converts a version-6 database's goroutines to interned texts, giving back the same goroutines", () => {
    const file = join(scratch(), "v6.db");
    const raw = new Database(file);
    raw.exec(version6Sql());
    raw.exec(`INSERT INTO meta VALUES ('schema_version', '6');
      INSERT INTO programs (id, name, root, dir, kind, source_hash) VALUES (1, 'p', '/r', '/r/p', 'test', 'h');
      INSERT INTO runs (id, program_id, config, procs, run_index, outcome, ingest_status, created_at)
        VALUES (4, 1, 'procs-2', 2, 0, 'ok', 'ok', 'now'), (9, 1, 'procs-2', 2, 1, 'ok', 'ok', 'now');
      INSERT INTO trace_strings (id, text) VALUES (1, 'chan receive'), (2, 'p.worker w.go:3');
      INSERT INTO event_records (run_id, seq, time_ns, kind, gid, actor_gid, reason, site, stack)
        VALUES (4, 0, 10, 2, 21, 21, 1, 2, 0);
      INSERT INTO goroutines (run_id, gid, canonical_id, parent_gid, entry, creation_site, is_root) VALUES
        (4, 20, 'TestA', NULL, 'p.TestA', NULL, 1),
        (4, 21, 'TestA/p.worker@w.go:9#0', 20, 'p.worker', 'p.TestA w.go:9', 0),
        (4, 22, 'TestA/p.worker@w.go:9#1', 20, 'p.worker', 'p.TestA w.go:9', 0),
        (4, 30, '(pre-trace)/p.worker w.go:3#0', NULL, 'p.worker w.go:3', NULL, 0),
        (9, 5, 'TestA', NULL, '', NULL, 1),
        (9, 6, 'TestA/p.worker@w.go:9#0', 5, 'p.worker', 'p.TestA w.go:9', 0),
        (9, 7, 'p.worker w.go:3', NULL, NULL, 'p.worker w.go:3', 0);`);
    const before = raw.prepare("SELECT * FROM goroutines ORDER BY run_id, gid").all();
    raw.close();
    expect(before).toHaveLength(7);
    expect(hintOf(() => openDatabase(file, { readonly: true }))).toMatch(/writing command/);
    const db = openDatabase(file);
    try {
      expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
        String(SCHEMA_VERSION),
      );
      expect(db.prepare("SELECT * FROM goroutines ORDER BY run_id, gid").all()).toEqual(before);
      expect(loadRunGoroutines(db, 9)).toEqual([
        { goroutine: 5, canonicalId: "TestA", parent: null, entry: "", creationSite: null, isRoot: true },
        {
          goroutine: 6,
          canonicalId: "TestA/p.worker@w.go:9#0",
          parent: 5,
          entry: "p.worker",
          creationSite: "p.TestA w.go:9",
          isRoot: false,
        },
        {
          goroutine: 7,
          canonicalId: "p.worker w.go:3",
          parent: null,
          entry: null,
          creationSite: "p.worker w.go:3",
          isRoot: false,
        },
      ]);
      // Texts are interned once, beside the records' (whose ids are unchanged); "" is id 0.
      expect(db.prepare("SELECT reason, site FROM events").all()).toEqual([
        { reason: "chan receive", site: "p.worker w.go:3" },
      ]);
      expect(db.prepare("SELECT entry FROM user_goroutines WHERE run_id = 9 AND gid = 5").pluck().get()).toBe(0);
      expect(db.prepare("SELECT count(*) FROM trace_strings").pluck().get()).toBe(3 + 7);
      expect(
        db.prepare("SELECT type, name FROM sqlite_master WHERE name LIKE '%goroutines%' ORDER BY name").all(),
      ).toEqual([
        { type: "view", name: "goroutines" },
        { type: "trigger", name: "goroutines_delete" },
        { type: "trigger", name: "goroutines_insert" },
        { type: "table", name: "runtime_goroutines" },
        { type: "table", name: "user_goroutines" },
        { type: "index", name: "user_goroutines_canonical" },
      ]);
      const plan = db
        .prepare("EXPLAIN QUERY PLAN SELECT run_id, gid FROM user_goroutines WHERE canonical_id = ?")
        .all(1) as { detail: string }[];
      expect(plan.map((p) => p.detail).join("; ")).toMatch(/USING COVERING INDEX user_goroutines_canonical/);
      // The view takes rows as the table did, and a deleted run takes its goroutines along.
      db.prepare("INSERT INTO goroutines (run_id, gid, canonical_id, entry) VALUES (9, 8, 'TestB', 'p.TestB')").run();
      expect(db.prepare("SELECT * FROM goroutines WHERE run_id = 9 AND gid = 8").get()).toEqual({
        run_id: 9,
        gid: 8,
        canonical_id: "TestB",
        parent_gid: null,
        entry: "p.TestB",
        creation_site: null,
        is_root: 0,
      });
      db.prepare("DELETE FROM runs WHERE id = 4").run();
      expect(db.prepare("SELECT count(*) FROM user_goroutines WHERE run_id = 4").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
    openDatabase(file, { readonly: true }).close();
  });

  it("refuses a newer schema version", () => {
    const file = join(scratch(), "newer.db");
    const raw = new Database(file);
    raw.exec(
      `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema_version', '${SCHEMA_VERSION + 1}');`,
    );
    raw.close();
    expect(hintOf(() => openDatabase(file))).toMatch(/newer schedlab/);
  });

  it("refuses an SQLite file that is not a schedlab database", () => {
    const file = join(scratch(), "other.db");
    const raw = new Database(file);
    raw.exec("CREATE TABLE customers (id INTEGER)");
    raw.close();
    expect(() => openDatabase(file)).toThrow(/not a schedlab one/);
  });

  it("refuses a file that is not SQLite at all", () => {
    const file = join(scratch(), "junk.db");
    writeFileSync(file, "this is not a database, it is a text file that is long enough to have a header ".repeat(10));
    expect(() => openDatabase(file)).toThrow(DatabaseUnavailableError);
  });

  it("reports a missing file when opened read-only", () => {
    expect(hintOf(() => openDatabase(join(scratch(), "missing.db"), { readonly: true }))).toMatch(/schedlab collect/);
  });
});

/** Version 4 is version 5 without the four runs columns of how a run ended and runtime_goroutines. */
function version4Sql(): string {
  const v4 = SCHEMA_SQL.replace(/\n\s*-- Why the run was stopped[^]*?leak_profile\s+TEXT,\n/, "\n").replace(
    /\n-- The goroutines of a run's goroutine leak profile[^]*?CREATE TABLE IF NOT EXISTS runtime_goroutines \([^;]*;/,
    "",
  );
  expect(v4).not.toMatch(/stop_reason|output_digest|untraced|leak_profile|runtime_goroutines/);
  return v4;
}

/** Version 6 is version 7 with the goroutines as a table of texts, as version 6 declared it. */
function version6Sql(): string {
  const v6 = SCHEMA_SQL.replace(
    /\n-- A user goroutine of one run[^]*?CREATE TRIGGER IF NOT EXISTS goroutines_delete[^]*?END;\n/,
    `
CREATE TABLE IF NOT EXISTS goroutines (
  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  gid           INTEGER NOT NULL,
  canonical_id  TEXT NOT NULL,
  parent_gid    INTEGER,
  entry         TEXT,
  creation_site TEXT,
  is_root       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, gid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS goroutines_canonical ON goroutines (canonical_id);
`,
  );
  expect(v6).not.toMatch(/user_goroutines|goroutines_insert/);
  return v6;
}
