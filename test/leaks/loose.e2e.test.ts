// End to end on a tree without go.mod, collected by a relative path as a user would
// (`schedlab collect test/fixtures/leaks/loose`): findings name packages relative to that
// root and are grouped by test and subtest; a worker's panic while main waits on a
// WaitGroup is a crash, not a leak; and a real -race build's reports become race findings.

import { execa } from "execa";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { collect } from "../../src/collect/index.js";
import { analyseLeaks, loadRaceFindings, storedPrograms, type LeakAnalysis } from "../../src/leaks/index.js";
import { openDatabase, type SchedlabDatabase } from "../../src/store/index.js";
import { ingestRuns } from "../../src/trace/index.js";
import { runCli } from "../helpers/cli.js";

const LOOSE = fileURLToPath(new URL("../fixtures/leaks/loose/", import.meta.url));
const RACE_RUNS = 3;

let dir: string;
let dbFile: string;
let db: SchedlabDatabase;
let analysis: LeakAnalysis;

/** Builds racy/ with -race (GOPATH mode: no go.mod) and records RACE_RUNS runs of it as collect records a race configuration. */
async function recordRaceRuns(): Promise<void> {
  const binary = join(dir, "racy-race");
  await execa("go", ["build", "-race", "-o", binary, "."], {
    cwd: join(LOOSE, "racy"),
    env: { GO111MODULE: "off", GOFLAGS: "" },
  });
  const [program] = storedPrograms(db, "racy");
  const insert = db.prepare(
    `INSERT INTO runs (program_id, config, procs, run_index, outcome, exit_code, stderr_tail, strategy, created_at)
     VALUES (?, 'race-procs-2', 2, ?, ?, ?, ?, 'race', ?)`,
  );
  for (let i = 0; i < RACE_RUNS; i++) {
    const result = await execa(binary, [], { reject: false, env: { GOMAXPROCS: "2" } });
    insert.run(
      program.id,
      i,
      result.exitCode === 0 ? "ok" : "exit-error",
      result.exitCode ?? null,
      result.stderr,
      new Date().toISOString(),
    );
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-loose-"));
  dbFile = join(dir, "schedlab.db");
  // A relative path, as typed at a shell in the repository.
  await collect({
    paths: [relative(process.cwd(), LOOSE)],
    runs: 3,
    timeoutMs: 5000,
    procs: [2],
    jobs: 2,
    db: dbFile,
    traces: join(dir, "traces"),
  });
  db = openDatabase(dbFile);
  await ingestRuns(db);
  await recordRaceRuns();
  analysis = await analyseLeaks(db);
}, 600_000);

afterAll(() => {
  db?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("a tree without go.mod", () => {
  test("the worker pool's leaked goroutines are placed in their subtests, with sites relative to the root given", () => {
    const pool = analysis.findings.filter((f) => f.program === "pool");
    expect(pool.map((f) => [f.test, f.reason, f.creationSite, f.blockingSite, f.entry])).toEqual([
      [
        "TestPool/go_without_wait/before_wait",
        "chan receive",
        "pool.(*Pool).Go pool.go:12",
        "pool.(*Pool).Go.func1 pool.go:13",
        "pool.(*Pool).Go.func1",
      ],
      [
        "TestTable/{tc.name}",
        "chan receive",
        "pool.(*Pool).Go pool.go:12",
        "pool.(*Pool).Go.func1 pool.go:13",
        "pool.(*Pool).Go.func1",
      ],
    ]);
    // The subtest that waits releases its worker: no finding under TestPool/waits.
    expect(pool.every((f) => !f.goroutine.includes("pool_test.go:6#"))).toBe(true);
  });

  test("no absolute path of this machine appears in the findings, crash reports or races", async () => {
    const result = await runCli(["leaks", "--db", dbFile, "--json"]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(LOOSE.replace(/\/$/, ""));
    expect(result.stdout).not.toContain(process.cwd());
    expect(result.stdout).not.toMatch(/"_\/|[ (]_\//);
    const goroutineSites = db
      .prepare("SELECT entry, creation_site FROM goroutines")
      .raw()
      .all()
      .flat()
      .filter((v) => typeof v === "string") as string[];
    expect(goroutineSites.filter((s) => s.includes("/tmp") || s.includes(LOOSE))).toEqual([]);
  });

  test("main waiting on a WaitGroup while the worker panics is blocked at a crash: no leak, no deadlock", () => {
    expect(analysis.findings.filter((f) => f.program === "wgpanic")).toEqual([]);
    const program = analysis.programs.find((p) => p.program === "wgpanic");
    expect(program).toMatchObject({ runs: 3, crashedRuns: 3 });
    expect(program?.blockedAtCrash.map((b) => [b.goroutine, b.reason, b.blockingSite, b.runsCrashed])).toEqual([
      ["main.main", "sync", "main.main main.go:20", 3],
    ]);
  });

  test("the race build's reports are one race finding, seen in every race run, stored with the findings", () => {
    // Both accesses are hits++ in record; which of the two goroutines read first varies by run.
    expect(analysis.races.map((r) => ({ ...r, createdAt: [...r.createdAt].sort() }))).toEqual([
      {
        program: "racy",
        frames: ["main.record main.go:14", "main.record main.go:14"],
        accesses: ["read", "write"],
        createdAt: ["main.main main.go:20", "main.main main.go:21"],
        runs: RACE_RUNS,
        runsChecked: RACE_RUNS,
      },
    ]);
    const [program] = storedPrograms(db, "racy");
    expect(loadRaceFindings(db, program.id)).toEqual(analysis.races);
    expect(analysis.findings.filter((f) => f.program === "racy")).toEqual([]);
  });

  test("the table groups by test; --fail-on-race exits 4, --fail-on-leak 3 first", async () => {
    const table = await runCli(["leaks", "--db", dbFile]);
    expect(table.stdout).toMatch(/^pool {2}TestPool\/go_without_wait\/before_wait\n {2}verdict +goroutine +reason/m);
    expect(table.stdout).toMatch(
      /^ {2}(proven|likely) +pool\.\(\*Pool\)\.Go\.func1 +chan receive +leak +pool\.go:12 +pool\.\(\*Pool\)\.Go\.func1 pool\.go:13 /m,
    );
    expect(table.stdout).toMatch(/^wgpanic +- +main\.main +sync +main\.main main\.go:20 +3$/m);
    expect(table.stdout).toMatch(
      /^racy +read main\.record main\.go:14 +write main\.record main\.go:14 +main\.main main\.go:2[01], main\.main main\.go:2[01] +3\/3$/m,
    );
    expect((await runCli(["leaks", "--db", dbFile, "--program", "racy", "--fail-on-race"])).code).toBe(4);
    expect((await runCli(["leaks", "--db", dbFile, "--fail-on-leak", "--fail-on-race"])).code).toBe(3);
    expect(
      (await runCli(["leaks", "--db", dbFile, "--program", "wgpanic", "--fail-on-leak", "--fail-on-race"])).code,
    ).toBe(0);
  });
});
