import Database from "better-sqlite3";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SchemaVersionError, DatabaseUnavailableError } from "../../src/errors.js";
import { openDatabase, SCHEMA_VERSION } from "../../src/store/index.js";

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
    raw.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema_version', '0');");
    raw.close();
    expect(() => openDatabase(file)).toThrow(SchemaVersionError);
    expect(hintOf(() => openDatabase(file))).toMatch(/older schedlab/);
  });

  it("refuses a newer schema version", () => {
    const file = join(scratch(), "newer.db");
    const raw = new Database(file);
    raw.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema_version', '${SCHEMA_VERSION + 1}');`);
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
