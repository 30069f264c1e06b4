// schedlab merge re-maps the interned strings of the goroutines (user_goroutines' canonical_id,
// entry, creation_site) as it does those of event_records: the merged database gives every
// run's goroutines with their texts, whatever ids the inputs gave them.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mergeDatabases, openDatabase } from "../../src/store/index.js";

const scratch = () => mkdtempSync(join(tmpdir(), "schedlab-merge-strings-"));

/** A database with one program and one run of it (run_index `index`), its goroutines and records inserted through the views. */
function shard(
  file: string,
  program: string,
  index: number,
  strings: readonly string[],
  goroutines: unknown[][],
): void {
  const db = openDatabase(file);
  try {
    // Strings interned before, in another order per shard, so the ids of the same texts differ.
    for (const text of strings) db.prepare("INSERT OR IGNORE INTO trace_strings (text) VALUES (?)").run(text);
    db.prepare(
      "INSERT INTO programs (id, name, root, dir, kind, source_hash) VALUES (1, ?, '/r', '/r/p', 'test', 'h')",
    ).run(program);
    db.prepare(
      "INSERT INTO runs (id, program_id, config, procs, run_index, outcome, ingest_status, created_at) VALUES (1, 1, 'procs-2', 2, ?, 'ok', 'ok', 'now')",
    ).run(index);
    const insert = db.prepare(
      "INSERT INTO goroutines (run_id, gid, canonical_id, parent_gid, entry, creation_site, is_root) VALUES (1, ?, ?, ?, ?, ?, ?)",
    );
    for (const g of goroutines) insert.run(...g);
    db.prepare(
      "INSERT INTO events (run_id, seq, time_ns, kind, gid, actor_gid, reason, site) VALUES (1, 0, 0, 'GoBlock', ?, ?, 'chan send', ?)",
    ).run(goroutines[1]![0], goroutines[1]![0], goroutines[1]![4]);
  } finally {
    db.close();
  }
}

const goroutinesOf = (file: string) => {
  const db = openDatabase(file, { readonly: true });
  try {
    return db
      .prepare(
        `SELECT p.name, r.run_index, g.gid, g.canonical_id, g.parent_gid, g.entry, g.creation_site, g.is_root
         FROM goroutines g JOIN runs r ON r.id = g.run_id JOIN programs p ON p.id = r.program_id ORDER BY 1, 2, 3`,
      )
      .raw()
      .all();
  } finally {
    db.close();
  }
};

describe("merge of goroutines", () => {
  it("re-maps their interned texts: the merged database gives each shard's goroutines as the shard did", () => {
    const dir = scratch();
    const [a, b, out] = ["a.db", "b.db", "out.db"].map((f) => join(dir, f)) as [string, string, string];
    shard(
      a,
      "pa",
      0,
      ["x", "y"],
      [
        [1, "TestA", null, "pa.TestA", null, 1],
        [2, "TestA/pa.work@a.go:3#0", 1, "pa.work", "pa.TestA a.go:3", 0],
      ],
    );
    shard(
      b,
      "pb",
      0,
      ["pa.TestA a.go:3", "TestB", "z"],
      [
        [7, "TestB", null, "", null, 1],
        [8, "TestB/pb.work@b.go:5#0", 7, "pb.work", "pb.TestB b.go:5", 0],
        [9, "TestB/pb.work@b.go:5#1", 7, null, "pb.TestB b.go:5", 0],
      ],
    );
    const expected = [...goroutinesOf(a), ...goroutinesOf(b)];
    expect(expected).toHaveLength(5);
    const summary = mergeDatabases(out, [a, b]);
    expect(summary.inputs.map((i) => i.rows["user_goroutines"])).toEqual([2, 3]);
    expect(goroutinesOf(out)).toEqual(expected);
    const db = openDatabase(out, { readonly: true });
    try {
      expect(db.prepare("SELECT gid, reason, site FROM events ORDER BY run_id").raw().all()).toEqual([
        [2, "chan send", "pa.TestA a.go:3"],
        [8, "chan send", "pb.TestB b.go:5"],
      ]);
      // One row per text: the texts the shards share are interned once.
      expect(db.prepare("SELECT count(*) - count(DISTINCT text) FROM trace_strings").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
    // Merging a shard again adds nothing.
    expect(mergeDatabases(out, [b]).inputs[0]!.rows["user_goroutines"]).toBe(0);
    expect(goroutinesOf(out)).toEqual(expected);
  });
});
