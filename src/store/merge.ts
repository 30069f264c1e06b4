// Merging schedlab databases (`schedlab merge OUT IN...`): the databases of the shards of
// one collection (collect --shard I/N) become one. Table-generic: every table whose
// declared foreign keys point at programs(id), runs(id) or trace_strings(id) (interned strings,
// merged by text) is copied with those columns
// re-mapped, column lists read from PRAGMA table_info, rows streamed by SQLite itself
// (INSERT … SELECT from the attached input), so a changed events layout still merges and
// memory stays flat in the number of events.
//
// Programs and runs are read row by row into id maps (one row each: memory grows with the
// number of runs, never with events); every other table is copied by SQLite.
//
// Identity: a program is its name (same name, same sources), a run its (program, config,
// run_index) with the same trace hash and creation time. Merging an input twice changes
// nothing; a program whose sources differ, or a run recorded differently, is a conflict
// and nothing of that input is written. Derived tables (dataset states and samples) are
// not copied: the dataset stage rebuilds them from the merged runs. Tables tied to neither
// programs nor runs (prediction cache, eval, rollout, fidelity, pipeline results) are
// results of whole-collection analyses and are not copied either; the summary lists them.

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { SchedlabError, UsageError } from "../errors.js";
import { inTransaction, openDatabase, type SchedlabDatabase } from "./db.js";

/** Two inputs disagree about a program or a run; nothing of the input was merged. */
export class MergeConflictError extends SchedlabError {}

/** Tables derived from runs that the dataset stage rebuilds (their run references are not all declared). */
export const DERIVED_TABLES: readonly string[] = ["states", "samples", "dataset_inputs"];

export interface MergeInputSummary {
  readonly path: string;
  readonly programsAdded: number;
  readonly programsKnown: number;
  readonly runsAdded: number;
  readonly runsKnown: number;
  /** Rows written per copied table (programs and runs excluded). */
  readonly rows: Readonly<Record<string, number>>;
}

export interface MergeSummary {
  readonly out: string;
  readonly inputs: readonly MergeInputSummary[];
  /** Tables of the inputs that merge does not copy, with why. */
  readonly notCopied: readonly string[];
}

interface Column {
  readonly name: string;
  readonly notnull: boolean;
  /** Part of a one-column INTEGER PRIMARY KEY (a rowid alias the target assigns anew). */
  readonly rowid: boolean;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function columnsOf(db: SchedlabDatabase, schema: string, table: string): Column[] {
  const rows = db.prepare(`PRAGMA ${schema}.table_info(${quote(table)})`).all() as {
    name: string;
    type: string;
    notnull: number;
    pk: number;
  }[];
  const pks = rows.filter((r) => r.pk > 0);
  return rows.map((r) => ({
    name: r.name,
    notnull: r.notnull === 1,
    rowid: pks.length === 1 && r.pk === 1 && r.type.toUpperCase() === "INTEGER",
  }));
}

/** Tables whose ids other tables refer to, with the temp table mapping an input id to the merged one. */
const ID_MAPS = { programs: "temp.program_map", runs: "temp.run_map", trace_strings: "temp.string_map" } as const;
type Parent = keyof typeof ID_MAPS;

/** Columns of `table` declared as references to programs(id), runs(id) or trace_strings(id). */
function referencesOf(db: SchedlabDatabase, schema: string, table: string): { column: string; parent: Parent }[] {
  const rows = db.prepare(`PRAGMA ${schema}.foreign_key_list(${quote(table)})`).all() as {
    table: string;
    from: string;
    to: string | null;
  }[];
  return rows
    .filter((r) => r.table in ID_MAPS && (r.to === null || r.to === "id"))
    .map((r) => ({ column: r.from, parent: r.table as Parent }));
}

/** Interned strings (trace_strings) are merged by text; string_map maps the input's ids to the merged ones. */
function mergeStrings(db: SchedlabDatabase): void {
  db.exec(`INSERT OR IGNORE INTO main.trace_strings (text) SELECT text FROM merge_input.trace_strings;
    INSERT INTO temp.string_map (old, new, fresh) SELECT i.id, m.id, 1 FROM merge_input.trace_strings i JOIN main.trace_strings m ON m.text = i.text;`);
}

/**
 * Merges `inputs` into the database at `out` (created if needed), one input per
 * transaction. Refuses inputs of another schema version (SchemaVersionError, from
 * openDatabase) and an input that is `out` itself.
 */
export function mergeDatabases(out: string, inputs: readonly string[]): MergeSummary {
  if (inputs.length === 0)
    throw new UsageError("merge needs at least one input database", "Run `schedlab merge OUT.db IN.db...`.");
  const target = resolve(out);
  for (const input of inputs) {
    if (resolve(input) === target)
      throw new UsageError(`${input} is the output database`, "Merge into a new or another database file.");
    if (!existsSync(input))
      throw new UsageError(`${input} does not exist`, "Give the paths of databases written by `schedlab collect`.");
    openDatabase(input, { readonly: true }).close(); // the schema version check, with its hint
  }
  const db = openDatabase(target);
  const notCopied = new Set<string>();
  try {
    const summaries = inputs.map((input) => mergeOne(db, resolve(input), notCopied));
    return { out: target, inputs: summaries, notCopied: [...notCopied].sort() };
  } finally {
    db.close();
  }
}

function mergeOne(db: SchedlabDatabase, input: string, notCopied: Set<string>): MergeInputSummary {
  db.prepare("ATTACH DATABASE ? AS merge_input").run(input);
  try {
    return inTransaction(db, () => {
      db.exec(`DROP TABLE IF EXISTS temp.program_map; DROP TABLE IF EXISTS temp.run_map;
        CREATE TEMP TABLE program_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL, fresh INTEGER NOT NULL);
        CREATE TEMP TABLE run_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL, fresh INTEGER NOT NULL);
        DROP TABLE IF EXISTS temp.string_map;
        CREATE TEMP TABLE string_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL, fresh INTEGER NOT NULL);`);
      mergeStrings(db);
      const conflicts: string[] = [];
      mergeCorpora(db, conflicts);
      const programs = mergePrograms(db, conflicts);
      const runs = conflicts.length === 0 ? mergeRuns(db, conflicts) : { added: 0, known: 0 };
      if (conflicts.length > 0) {
        throw new MergeConflictError(
          `${input} disagrees with the merged database: ${conflicts.slice(0, 5).join("; ")}${conflicts.length > 5 ? `; and ${conflicts.length - 5} more` : ""}`,
          "Merge the shards of one collection (same tree, same sources); collect a changed tree into a new database.",
        );
      }
      const rows: Record<string, number> = {};
      const tables = (
        db
          .prepare("SELECT name FROM merge_input.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
          .all() as { name: string }[]
      ).map((r) => r.name);
      const known = new Set(
        (db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
          (r) => r.name,
        ),
      );
      for (const table of tables) {
        if (
          table === "meta" ||
          table === "corpora" ||
          table === "programs" ||
          table === "runs" ||
          table === "trace_strings"
        )
          continue;
        if (DERIVED_TABLES.includes(table)) {
          notCopied.add(`${table} (derived: rebuilt from the merged runs by the dataset stage)`);
          continue;
        }
        const references = referencesOf(db, "merge_input", table);
        if (references.length === 0 || !known.has(table)) {
          notCopied.add(`${table} (${known.has(table) ? "not tied to programs or runs" : "unknown to this schedlab"})`);
          continue;
        }
        rows[table] = copyTable(db, table, references);
      }
      db.exec("DROP TABLE temp.program_map; DROP TABLE temp.run_map; DROP TABLE temp.string_map;");
      return {
        path: input,
        programsAdded: programs.added,
        programsKnown: programs.known,
        runsAdded: runs.added,
        runsKnown: runs.known,
        rows,
      };
    });
  } finally {
    db.exec("DETACH DATABASE merge_input");
  }
}

/**
 * Corpora (collection metadata: a root's label and role, which decide program names) are
 * copied by root; the same root with another label or role is a conflict.
 */
function mergeCorpora(db: SchedlabDatabase, conflicts: string[]): void {
  const find = db.prepare("SELECT label, role FROM main.corpora WHERE root = ?");
  const insert = db.prepare("INSERT INTO main.corpora (root, label, role) VALUES (?, ?, ?)");
  for (const c of db.prepare("SELECT root, label, role FROM merge_input.corpora").all() as {
    root: string;
    label: string;
    role: string;
  }[]) {
    const existing = find.get(c.root) as { label: string; role: string } | undefined;
    const owner = db.prepare("SELECT root FROM main.corpora WHERE label = ?").pluck().get(c.label) as
      string | undefined;
    if (existing === undefined && owner !== undefined)
      conflicts.push(`corpus label ${c.label} names ${owner} here and ${c.root} there`);
    else if (existing === undefined) insert.run(c.root, c.label, c.role);
    else if (existing.label !== c.label || existing.role !== c.role)
      conflicts.push(`corpus ${c.root} is ${c.label} (${c.role}) there and ${existing.label} (${existing.role}) here`);
  }
}

function mergePrograms(db: SchedlabDatabase, conflicts: string[]): { added: number; known: number } {
  const columns = columnsOf(db, "main", "programs")
    .filter((c) => c.name !== "id")
    .map((c) => c.name);
  const find = db.prepare("SELECT id, source_hash AS sourceHash FROM main.programs WHERE name = ?");
  const insert = db.prepare(
    `INSERT INTO main.programs (${columns.map(quote).join(", ")}) SELECT ${columns.map(quote).join(", ")} FROM merge_input.programs WHERE id = ?`,
  );
  const map = db.prepare("INSERT INTO temp.program_map (old, new, fresh) VALUES (?, ?, ?)");
  let added = 0;
  let known = 0;
  for (const program of db.prepare("SELECT id, name, source_hash AS sourceHash FROM merge_input.programs").all() as {
    id: number;
    name: string;
    sourceHash: string;
  }[]) {
    const existing = find.get(program.name) as { id: number; sourceHash: string } | undefined;
    if (existing !== undefined) {
      if (existing.sourceHash !== program.sourceHash) conflicts.push(`program ${program.name} has other sources`);
      map.run(program.id, existing.id, 0);
      known++;
    } else {
      map.run(program.id, Number(insert.run(program.id).lastInsertRowid), 1);
      added++;
    }
  }
  return { added, known };
}

function mergeRuns(db: SchedlabDatabase, conflicts: string[]): { added: number; known: number } {
  const columns = columnsOf(db, "main", "runs")
    .filter((c) => c.name !== "id")
    .map((c) => c.name);
  const selected = columns.map((c) => (c === "program_id" ? "m.new" : `r.${quote(c)}`));
  const find = db.prepare(
    "SELECT id, trace_sha256 AS sha, created_at AS createdAt FROM main.runs WHERE program_id = ? AND config = ? AND run_index = ?",
  );
  const insert = db.prepare(
    `INSERT INTO main.runs (${columns.map(quote).join(", ")}) SELECT ${selected.join(", ")} ` +
      "FROM merge_input.runs r JOIN temp.program_map m ON m.old = r.program_id WHERE r.id = ?",
  );
  const map = db.prepare("INSERT INTO temp.run_map (old, new, fresh) VALUES (?, ?, ?)");
  let added = 0;
  let known = 0;
  const runs = db.prepare(
    `SELECT r.id, m.new AS programId, p.name, r.config, r.run_index AS idx, r.trace_sha256 AS sha, r.created_at AS createdAt
     FROM merge_input.runs r JOIN temp.program_map m ON m.old = r.program_id JOIN merge_input.programs p ON p.id = r.program_id`,
  );
  for (const run of runs.all() as {
    id: number;
    programId: number;
    name: string;
    config: string;
    idx: number;
    sha: string | null;
    createdAt: string;
  }[]) {
    const existing = find.get(run.programId, run.config, run.idx) as
      { id: number; sha: string | null; createdAt: string } | undefined;
    if (existing !== undefined) {
      if (existing.sha !== run.sha || existing.createdAt !== run.createdAt)
        conflicts.push(`run ${run.config} #${run.idx} of ${run.name} was recorded differently`);
      map.run(run.id, existing.id, 0);
      known++;
    } else {
      map.run(run.id, Number(insert.run(run.id).lastInsertRowid), 1);
      added++;
    }
  }
  return { added, known };
}

/**
 * Copies one dependent table with its program and run references re-mapped. Rows of a
 * table that requires a run (a NOT NULL reference to runs) are copied for newly merged runs
 * only; other rows with INSERT OR IGNORE, so their keys make a second merge a no-op.
 */
function copyTable(db: SchedlabDatabase, table: string, references: { column: string; parent: Parent }[]): number {
  const target = new Map(columnsOf(db, "main", table).map((c) => [c.name, c]));
  const columns = columnsOf(db, "merge_input", table).filter((c) => target.has(c.name) && !c.rowid);
  const joins: string[] = [];
  const select = columns.map((c) => {
    const reference = references.find((r) => r.column === c.name);
    if (reference === undefined) return `t.${quote(c.name)}`;
    const alias = `m${joins.length}`;
    const map = ID_MAPS[reference.parent];
    const required = target.get(c.name)!.notnull;
    // A required run reference copies the row only with a run merged just now.
    const fresh = required && reference.parent === "runs" ? ` AND ${alias}.fresh = 1` : "";
    joins.push(`${required ? "JOIN" : "LEFT JOIN"} ${map} ${alias} ON ${alias}.old = t.${quote(c.name)}${fresh}`);
    return `${alias}.new`;
  });
  const sql = `INSERT OR IGNORE INTO main.${quote(table)} (${columns.map((c) => quote(c.name)).join(", ")})
    SELECT ${select.join(", ")} FROM merge_input.${quote(table)} t ${joins.join(" ")}`;
  return db.prepare(sql).run().changes;
}
