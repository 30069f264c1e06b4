// Batched multi-row INSERT: the one way stages write many rows of a table. One statement per
// row (or per VALUES tuple) costs several times more than one statement per batch of rows.

import type Database from "better-sqlite3";
import type { SchedlabDatabase } from "./db.js";

/** Rows per statement unless a caller measured better: multi-row VALUES cut the per-statement cost several-fold. */
const DEFAULT_ROWS_PER_STATEMENT = 64;

/** SQLite's limit on the parameters of one statement (SQLITE_MAX_VARIABLE_NUMBER since 3.32). */
const MAX_PARAMETERS = 32_766;

/**
 * A writer of rows through `insert` ("INSERT [OR …] INTO table (c1, …, cW)", without VALUES).
 * It takes the rows' values flat, `width` per row in column order, and inserts them
 * `rowsPerStatement` rows a statement, the last statement taking the rest; a statement is
 * prepared once per row count. Rows go in in order, so their rowids follow it.
 */
export function multiRowInsert(
  db: SchedlabDatabase,
  insert: string,
  width: number,
  rowsPerStatement = DEFAULT_ROWS_PER_STATEMENT,
): (values: readonly unknown[]) => void {
  if (
    !Number.isInteger(width) ||
    width < 1 ||
    !Number.isInteger(rowsPerStatement) ||
    rowsPerStatement < 1 ||
    width * rowsPerStatement > MAX_PARAMETERS
  ) {
    throw new RangeError(
      `multiRowInsert: ${rowsPerStatement} rows of ${width} values is not a valid statement size (at most ${MAX_PARAMETERS} parameters)`,
    );
  }
  const tuple = `(${Array(width).fill("?").join(", ")})`;
  const statements = new Map<number, Database.Statement>();
  const statement = (rows: number): Database.Statement => {
    let prepared = statements.get(rows);
    if (prepared === undefined) {
      prepared = db.prepare(`${insert} VALUES ${Array(rows).fill(tuple).join(", ")}`);
      statements.set(rows, prepared);
    }
    return prepared;
  };
  const per = rowsPerStatement * width;
  return (values) => {
    if (values.length % width !== 0)
      throw new RangeError(`multiRowInsert: ${values.length} values are not whole rows of ${width}`);
    let i = 0;
    for (; i + per <= values.length; i += per) statement(rowsPerStatement).run(values.slice(i, i + per));
    if (i < values.length) statement((values.length - i) / width).run(values.slice(i));
  };
}
