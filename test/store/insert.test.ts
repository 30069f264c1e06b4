// multiRowInsert: the one batched multi-row INSERT (ingest, dataset): every row lands, in
// order, whatever the count against the batch size; malformed input is refused.

import { describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { multiRowInsert } from "../../src/store/index.js";

function table(): Database.Database {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b TEXT)");
  return db;
}

describe("multiRowInsert", () => {
  it.each([0, 1, 3, 4, 5, 11])("inserts %i rows in order, four a statement and the rest in one", (rows) => {
    const db = table();
    const values = Array.from({ length: rows }, (_, i) => [i * 10, i % 3 === 0 ? null : `r${i}`]).flat();
    multiRowInsert(db, "INSERT INTO t (a, b)", 2, 4)(values);
    expect(db.prepare("SELECT id, a, b FROM t ORDER BY id").all()).toEqual(
      Array.from({ length: rows }, (_, i) => ({ id: i + 1, a: i * 10, b: i % 3 === 0 ? null : `r${i}` })),
    );
  });

  it("writes through the same writer twice (statements prepared once per row count) and honours INSERT OR IGNORE", () => {
    const db = table();
    const insert = multiRowInsert(db, "INSERT OR IGNORE INTO t (id, a, b)", 3);
    insert([1, 1, "x", 2, 2, "y"]);
    insert([2, 20, "dup", 3, 3, "z"]);
    expect(db.prepare("SELECT id, a, b FROM t ORDER BY id").all()).toEqual([
      { id: 1, a: 1, b: "x" },
      { id: 2, a: 2, b: "y" },
      { id: 3, a: 3, b: "z" },
    ]);
  });

  it("refuses values that are not whole rows, and statements over SQLite's parameter limit", () => {
    const db = table();
    expect(() => multiRowInsert(db, "INSERT INTO t (a, b)", 2)([1, "x", 2])).toThrow(/not whole rows of 2/);
    expect(() => multiRowInsert(db, "INSERT INTO t (a, b)", 2, 20_000)).toThrow(/at most 32766 parameters/);
    expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(0);
  });
});
