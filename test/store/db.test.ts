import Database from "better-sqlite3";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SchemaVersionError, DatabaseUnavailableError } from "../../src/errors.js";
import { openDatabase, SCHEMA_SQL, SCHEMA_VERSION } from "../../src/store/index.js";

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
