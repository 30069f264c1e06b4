// Opening the schedlab database: creation, schema version checks, pragmas.

import Database from "better-sqlite3";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { DatabaseUnavailableError, SchemaVersionError } from "../errors.js";
import {
  CONVERT_LEGACY_GOROUTINES_SQL,
  COPY_LEGACY_EVENTS_SQL,
  LEGACY_EVENTS_TABLE,
  SCHEMA_SQL,
  SCHEMA_VERSION,
  TRACE_STRINGS_SQL,
  UPGRADE_FROM_3_SQL,
  UPGRADE_FROM_4_SQL,
} from "./schema.js";

export type SchedlabDatabase = Database.Database;

export interface OpenDatabaseOptions {
  /** Open without creating or migrating; fails if the file does not exist. */
  readonly readonly?: boolean;
}

/**
 * Opens (creating if needed) the database at `path` and checks its schema version.
 * WAL mode lets readers proceed while a collect is writing; a busy timeout waits
 * for another schedlab process instead of failing at once.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): SchedlabDatabase {
  const file = resolve(path);
  let db: SchedlabDatabase;
  try {
    if (!options.readonly) mkdirSync(dirname(file), { recursive: true });
    db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  } catch (error) {
    throw new DatabaseUnavailableError(
      `cannot open database ${file}: ${(error as Error).message}`,
      options.readonly
        ? "Run `schedlab collect` first to create it, or pass --db with the right path."
        : "Check that the directory is writable and the file is a schedlab database, or pass --db with another path.",
    );
  }
  try {
    db.pragma("busy_timeout = 10000");
    if (!options.readonly) {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
    }
    db.pragma("foreign_keys = ON");
    checkAndMigrate(db, file, options.readonly ?? false);
  } catch (error) {
    db.close();
    if (error instanceof SchemaVersionError) throw error;
    const message = (error as Error).message;
    if (/not a database|file is encrypted/i.test(message)) {
      throw new DatabaseUnavailableError(
        `${file} is not an SQLite database`,
        "Pass --db with the path of a schedlab database, or move this file away.",
      );
    }
    if (/locked|busy/i.test(message)) {
      throw new DatabaseUnavailableError(
        `database ${file} is locked by another process`,
        "Wait for the other schedlab command to finish, or pass --db with another file.",
      );
    }
    throw error;
  }
  return db;
}

function checkAndMigrate(db: SchedlabDatabase, file: string, readonly: boolean): void {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
  const tableCount = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number })
    .n;
  if (!hasMeta && tableCount > 0) {
    throw new SchemaVersionError(
      `${file} is an SQLite database but not a schedlab one (no meta table)`,
      "Pass --db with a schedlab database, or a new file name to start afresh.",
    );
  }
  if (hasMeta) {
    const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
      { value: string } | undefined;
    const found = row === undefined ? NaN : Number(row.value);
    if (found === 3 || found === 4 || found === 5 || found === 6) upgradeFrom(found, db, file, readonly);
    else if (found !== SCHEMA_VERSION) {
      const older = found < SCHEMA_VERSION;
      throw new SchemaVersionError(
        `${file} has schema version ${row?.value ?? "unknown"}; this schedlab uses version ${SCHEMA_VERSION}`,
        older
          ? "The database was made by an older schedlab: re-run `schedlab collect --force` into a new --db file " +
              "(traces on disk are reused by `schedlab ingest`)."
          : "The database was made by a newer schedlab: upgrade schedlab, or pass --db with another file.",
      );
    }
  }
  const legacyEvents =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get() !== undefined;
  if (legacyEvents && readonly) {
    throw new SchemaVersionError(
      `${file} stores its events in the layout before event_records (docs/schema.md)`,
      "Run any writing command on it once (e.g. `schedlab ingest --db FILE`), which converts it in place, then retry.",
    );
  }
  if (readonly) return;
  if (legacyEvents) {
    inTransaction(db, () => {
      // Renaming checks every view, and the goroutines view reads trace_strings: create it first.
      db.exec(TRACE_STRINGS_SQL);
      db.exec(`ALTER TABLE events RENAME TO ${LEGACY_EVENTS_TABLE}`);
      db.exec(SCHEMA_SQL);
      db.exec(COPY_LEGACY_EVENTS_SQL);
    });
  }
  dropFindingsOfTwoKinds(db);
  db.exec(SCHEMA_SQL);
  db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
}

/**
 * Versions 4 to 6 only added to the version before (4: runs.store, whose default 'events'
 * is what every version-3 run holds, and the run_end_states table; 5: four nullable runs
 * columns and the runtime_goroutines table; 6: the run_excerpts table); 7 interned the
 * goroutines' texts (user_goroutines and the goroutines view). A writable open upgrades the
 * file in place, in one transaction, step by step: the goroutines table of an older file is
 * converted row by row with the same texts (CONVERT_LEGACY_GOROUTINES_SQL). A read-only open
 * is refused with the hint to run a writing command once (it cannot change the file).
 * SCHEMA_SQL then creates the new tables.
 */
function upgradeFrom(found: 3 | 4 | 5 | 6, db: SchedlabDatabase, file: string, readonly: boolean): void {
  if (readonly) {
    throw new SchemaVersionError(
      `${file} has schema version ${found}; this schedlab uses version ${SCHEMA_VERSION}, to which a writing command upgrades it in place`,
      "Run any writing command on it once (e.g. `schedlab ingest --db FILE`), which upgrades it keeping everything, then retry.",
    );
  }
  inTransaction(db, () => {
    if (found === 3) db.exec(UPGRADE_FROM_3_SQL);
    if (found <= 4) db.exec(UPGRADE_FROM_4_SQL);
    if (hasGoroutinesTable(db)) db.exec(CONVERT_LEGACY_GOROUTINES_SQL);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION));
  });
}

/** Whether the goroutines are still a table of texts (before version 7; since then a view). */
function hasGoroutinesTable(db: SchedlabDatabase): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'goroutines'").get() !== undefined;
}

/**
 * leak_findings once allowed only the kinds leak and deadlock. It holds derived rows that
 * every `schedlab leaks` rewrites, so a table with the old constraint is dropped and made
 * anew by SCHEMA_SQL (the next analysis fills it); nothing collected is touched.
 */
function dropFindingsOfTwoKinds(db: SchedlabDatabase): void {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'leak_findings'").get() as
    { sql: string } | undefined;
  if (row !== undefined && !row.sql.includes("'outlived'")) db.exec("DROP TABLE leak_findings");
}

/** Opens a database that must already exist (commands that read a collection); writable, since they refresh derived tables. */
export function openExistingDatabase(path: string): SchedlabDatabase {
  const file = resolve(path);
  if (!existsSync(file)) {
    throw new DatabaseUnavailableError(
      `no database at ${file}`,
      "Run `schedlab collect` (which ingests traces) first, or pass --db with the right path.",
    );
  }
  return openDatabase(file);
}

/** Runs `work` inside one transaction; an exception rolls everything back. */
export function inTransaction<T>(db: SchedlabDatabase, work: () => T): T {
  return db.transaction(work)();
}
