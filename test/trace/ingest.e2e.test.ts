// Ingest into a real SQLite file: statuses per run, idempotent re-ingest, truncated and
// corrupt runs in one batch, and reading back through loadRunRecords; plus the CLI.

import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type SchedlabDatabase } from "../../src/store/index.js";
import { ingestRuns, loadRunGoroutines, loadRunRecords } from "../../src/trace/index.js";
import { runCli } from "../helpers/cli.js";
import { decodeAll, fixture } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "schedlab-ingest-"));
const dbPath = join(dir, "schedlab.db");

function addProgram(db: SchedlabDatabase, name: string, kind: "main" | "test", programDir = join(dir, name)): number {
  return Number(
    db
      .prepare("INSERT INTO programs (name, root, dir, kind, source_hash) VALUES (?, ?, ?, ?, 'x')")
      .run(name, dir, programDir, kind).lastInsertRowid,
  );
}

function addRun(db: SchedlabDatabase, programId: number, index: number, tracePath: string | null): number {
  return Number(
    db
      .prepare(
        `INSERT INTO runs (program_id, config, procs, run_index, outcome, trace_path, created_at)
         VALUES (?, 'procs-1', 1, ?, 'ok', ?, '2026-01-01T00:00:00Z')`,
      )
      .run(programId, index, tracePath).lastInsertRowid,
  );
}

const runIds: Record<string, number> = {};

beforeAll(() => {
  copyFileSync(fixture("tree.trace"), join(dir, "tree.trace"));
  const generations = readFileSync(fixture("generations.trace"));
  writeFileSync(join(dir, "cut.trace"), generations.subarray(0, Math.floor(generations.length * 0.6)));
  writeFileSync(join(dir, "random.trace"), Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31 + 7) % 256)));
  const db = openDatabase(dbPath);
  const tree = addProgram(db, "patterns/tree", "main");
  const gens = addProgram(db, "patterns/generations", "main");
  const tests = addProgram(db, "patterns/testpkg", "test", fixture("testpkg")); // its _test.go files name the quiet test
  runIds.tree0 = addRun(db, tree, 0, "tree.trace"); // relative: resolved against the database's directory
  runIds.tree1 = addRun(db, tree, 1, join(dir, "random.trace"));
  runIds.tree2 = addRun(db, tree, 2, null); // no trace: not ingested
  runIds.cut = addRun(db, gens, 0, join(dir, "cut.trace"));
  runIds.tests = addRun(db, tests, 0, fixture("testpkg.trace"));
  db.close();
});

describe("ingestRuns", () => {
  it("ingests every traced run, marking truncated and corrupt ones, without stopping the batch", async () => {
    const db = openDatabase(dbPath);
    try {
      const summary = await ingestRuns(db, { concurrency: 2 });
      const status = Object.fromEntries(summary.runs.map((r) => [r.runId, r.status]));
      expect(status).toEqual({
        [runIds.tree0]: "ok",
        [runIds.tree1]: "error",
        [runIds.cut]: "truncated",
        [runIds.tests]: "ok",
      });
      expect([summary.ok, summary.truncated, summary.errors]).toEqual([2, 1, 1]);
      const rows = db.prepare("SELECT id, ingest_status, ingest_error, truncated FROM runs ORDER BY id").all() as {
        id: number;
        ingest_status: string | null;
        ingest_error: string | null;
        truncated: number;
      }[];
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(byId.get(runIds.tree1)?.ingest_error).toMatch(/not a Go execution trace/);
      expect(byId.get(runIds.cut)).toMatchObject({ ingest_status: "truncated", truncated: 1 });
      expect(byId.get(runIds.tree2)?.ingest_status).toBeNull();

      const expected = await decodeAll(fixture("tree.trace"), { mode: "main" });
      expect(loadRunRecords(db, runIds.tree0)).toEqual(expected.records);
      expect(loadRunGoroutines(db, runIds.tree0)).toEqual(
        [...expected.summary.goroutines].sort((a, b) => a.goroutine - b.goroutine),
      );
      expect(loadRunRecords(db, runIds.cut).length).toBeGreaterThan(0);
      expect(loadRunRecords(db, runIds.tree1)).toEqual([]);
      expect(
        loadRunGoroutines(db, runIds.tests)
          .filter((g) => g.isRoot)
          .map((g) => g.canonicalId),
      ).toEqual(["TestQuiet", "TestWorkers"]);
    } finally {
      db.close();
    }
  });

  it("skips ingested runs, and re-ingests idempotently with force", async () => {
    const db = openDatabase(dbPath);
    try {
      const count = () => (db.prepare("SELECT count(*) AS n FROM events").get() as { n: number }).n;
      const before = count();
      const again = await ingestRuns(db);
      expect(again.runs).toEqual([]);
      const forced = await ingestRuns(db, { force: true });
      expect(forced.runs).toHaveLength(4);
      expect(count()).toBe(before);
      expect((db.prepare("SELECT count(*) AS n FROM goroutines").get() as { n: number }).n).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });
});

describe("schedlab ingest / events", () => {
  it("ingest --json reports per-run results and exits 1 when a run failed", async () => {
    const result = await runCli(["ingest", "--db", dbPath, "--force", "--json"]);
    expect(result.code).toBe(1);
    const summary = JSON.parse(result.stdout) as { runs: { status: string }[]; errors: number };
    expect(summary.errors).toBe(1);
    expect(summary.runs.map((r) => r.status).sort()).toEqual(["error", "ok", "ok", "truncated"]);
  });

  it("events --json prints the documented fields with canonical ids", async () => {
    const result = await runCli(["events", "--db", dbPath, "--program", "patterns/tree", "--run", "0", "--json"]);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(rows).toHaveLength(57);
    expect(Object.keys(rows[1]).sort()).toEqual([
      "actor",
      "actorGid",
      "event",
      "gid",
      "goroutine",
      "reason",
      "seq",
      "site",
      "time",
    ]);
    expect(rows[1]).toMatchObject({
      event: "GoCreate",
      goroutine: "main.main/main.worker@main.go:39#0",
      actor: "main.main",
      site: "main.main main.go:39",
    });
  });

  it("events shows a table, filters by goroutine, and explains bad arguments", async () => {
    const table = await runCli([
      "events",
      "--db",
      dbPath,
      "--program",
      "patterns/tree",
      "--run",
      "0",
      "--goroutine",
      "main.main/main.main.func2@main.go:59#0",
    ]);
    expect(table.code).toBe(0);
    const lines = table.stdout.split("\n");
    expect(lines[0]).toBe("goroutines:");
    expect(lines).toContain(`  G${14}  main.main/main.main.func2@main.go:59#0`);
    expect(lines.find((l) => l.startsWith("time"))).toMatch(/^time\(ms\)\s+actor\s+subject\s+event\s+reason\s+site$/);
    expect(lines.find((l) => l.includes("GoBlock"))).toMatch(
      /^\d+\.\d{6}\s+G14\s+G14\s+GoBlock\s+chan receive\s+main\.main\.func2 main\.go:61$/,
    );
    expect(table.stdout).toContain("chan receive");
    expect(table.stdout).toContain("3 event(s)");
    const missing = await runCli(["events", "--db", dbPath, "--program", "nope", "--run", "0"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("Known programs: patterns/generations, patterns/testpkg, patterns/tree");
    const broken = await runCli(["events", "--db", dbPath, "--program", "patterns/tree", "--run", "1"]);
    expect(broken.stderr).toMatch(/could not be decoded: .*not a Go execution trace/);
    const pending = await runCli(["events", "--db", dbPath, "--program", "patterns/tree", "--run", "2"]);
    expect(pending.stderr).toMatch(/not ingested yet\n {2}Run `schedlab ingest` first/);
  });
});
