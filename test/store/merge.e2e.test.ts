// collect --shard + schedlab merge against one collection of the same programs: the same
// runs (by program, configuration, index and outcome) and, through `schedlab leaks`, the
// same findings (by signature: program, reason, kind, goroutine without its sibling
// ordinal, which schedules reorder). The merged database holds exactly the shards' runs,
// goroutines, events and findings. Merging a shard twice changes nothing; other schema
// versions and disagreeing inputs are refused.

import Database from "better-sqlite3";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { mergeDatabases, MergeConflictError, SCHEMA_VERSION } from "../../src/store/index.js";
import { SchemaVersionError } from "../../src/errors.js";
import { runCli } from "../helpers/cli.js";
import { FIXTURES, PROGRAMS, scratch } from "../collect/helpers.js";

// clean, leak-select and test-leak fall in shard 0 of 2, os-exit and clean-pool in shard 1 (by name hash).
const PATHS = ["clean", "leak-select", "test-leak", "os-exit"]
  .map((p) => join(PROGRAMS, p))
  .concat(join(FIXTURES, "explore", "clean-pool"));
let dir: string;

async function collectInto(name: string, extra: string[]): Promise<string> {
  const db = join(dir, `${name}.db`);
  const result = await runCli([
    "collect",
    ...PATHS,
    "--runs",
    "2",
    "--procs",
    "2",
    "--timeout",
    "3s",
    "--db",
    db,
    "--traces",
    join(dir, `traces-${name}`),
    ...extra,
  ]);
  expect(result.code, result.stderr).toBe(0);
  return db;
}

function runsOf(path: string, withGoroutines = true): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return (
      db
        .prepare(
          `SELECT p.name, r.config, r.run_index AS i, r.outcome, r.ingest_status AS s, (SELECT count(*) FROM goroutines g WHERE g.run_id = r.id) AS g
       FROM runs r JOIN programs p ON p.id = r.program_id ORDER BY 1, 2, 3`,
        )
        .all() as { name: string; config: string; i: number; outcome: string; s: string; g: number }[]
    ).map((r) => `${r.name} ${r.config} #${r.i} ${r.outcome} ${r.s}${withGoroutines ? ` goroutines=${r.g}` : ""}`);
  } finally {
    db.close();
  }
}

function counts(path: string): Record<string, number> {
  const db = new Database(path, { readonly: true });
  try {
    return Object.fromEntries(
      ["programs", "builds", "runs", "goroutines", "events"].map((t) => [
        t,
        (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n,
      ]),
    );
  } finally {
    db.close();
  }
}

async function findings(path: string): Promise<string[]> {
  const result = await runCli(["leaks", "--db", path, "--json"]);
  expect(result.code, result.stderr).toBe(0);
  const parsed = JSON.parse(result.stdout) as {
    findings: { program: string; goroutine: string; reason: string; kind: string }[];
  };
  return parsed.findings.map((f) => `${f.program} ${f.goroutine} ${f.reason} ${f.kind}`).sort();
}

let whole: string;
let shards: string[];
let merged: string;

beforeAll(async () => {
  dir = scratch("merge");
  whole = await collectInto("whole", []);
  shards = [await collectInto("shard0", ["--shard", "0/2"]), await collectInto("shard1", ["--shard", "1/2"])];
  merged = join(dir, "merged.db");
  const result = await runCli(["merge", merged, ...shards]);
  expect(result.code, result.stderr).toBe(0);
});

describe("shard + merge", () => {
  it("splits the programs between the shards, each program in exactly one", () => {
    const names = (path: string) => [...new Set(runsOf(path).map((r) => r.split(" ")[0]))];
    expect(names(shards[0]!)).toEqual(["clean", "leak-select", "test-leak"]);
    expect(names(shards[1]!)).toEqual(["clean-pool", "os-exit"]);
  });

  it("gives the same runs as one collection, and exactly the shards' runs with their goroutines", () => {
    expect(runsOf(merged, false)).toEqual(runsOf(whole, false));
    expect(runsOf(merged)).toHaveLength(10);
    expect(runsOf(merged)).toEqual([...runsOf(shards[0]!), ...runsOf(shards[1]!)].sort());
  });

  it("gives the same leak findings as one collection, and exactly the shards' findings", async () => {
    const signature = (finding: string) => finding.replace(/#\d+ /, " ");
    const fromWhole = await findings(whole);
    expect(new Set(fromWhole.map(signature))).toEqual(
      new Set([
        "leak-select main.main/main.waiter@main.go:25 select leak",
        "os-exit main.main forever leak",
        "test-leak TestLeaksReceiver/test-leak.TestLeaksReceiver.func1@leak_test.go:8 chan receive leak",
      ]),
    );
    const fromMerged = await findings(merged);
    expect(new Set(fromMerged.map(signature))).toEqual(new Set(fromWhole.map(signature)));
    expect(fromMerged).toEqual([...(await findings(shards[0]!)), ...(await findings(shards[1]!))].sort());
  });

  it("is idempotent: merging a shard again adds nothing", () => {
    const before = counts(merged);
    const summary = mergeDatabases(merged, [shards[0]!]);
    expect(summary.inputs[0]).toMatchObject({ programsAdded: 0, runsAdded: 0, programsKnown: 3, runsKnown: 6 });
    expect(counts(merged)).toEqual(before);
    expect(before.events).toBe(counts(shards[0]!).events + counts(shards[1]!).events);
  });

  it("refuses a database of another schema version, with the usual hint", () => {
    const old = join(dir, "old.db");
    const db = new Database(old);
    db.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema_version', '1');",
    );
    db.close();
    expect(() => mergeDatabases(join(dir, "out-old.db"), [old])).toThrow(SchemaVersionError);
    expect(() => mergeDatabases(join(dir, "out-old.db"), [old])).toThrow(
      new RegExp(`schema version 1; this schedlab uses version ${SCHEMA_VERSION}`),
    );
  });

  it("refuses a program whose sources differ, and writes nothing of that input", () => {
    const other = join(dir, "other.db");
    mergeDatabases(other, [shards[1]!]);
    const db = new Database(other);
    db.prepare("UPDATE programs SET source_hash = 'changed' WHERE name = 'os-exit'").run();
    db.close();
    const before = counts(merged);
    expect(() => mergeDatabases(merged, [other])).toThrow(MergeConflictError);
    expect(counts(merged)).toEqual(before);
  });
});
