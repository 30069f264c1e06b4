// collect --drop-traces on a real collection: each run's trace file is deleted once the run is
// stored, the files beside it stay, and the runs stay complete without it — a second collect
// runs nothing again, an ingest (even --force) leaves them as stored and says so, leaks give the
// same bugs with no `go tool trace` line, and a replay says why it cannot run.

import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { analyseLeaks } from "../../src/leaks/index.js";
import { openDatabase } from "../../src/store/index.js";
import { runCli } from "../helpers/cli.js";

const CORPUS = fileURLToPath(new URL("../../go-programs/", import.meta.url));
// A labelled leak (a bug to explain) and a clean program.
const PROGRAMS = ["kernels/selectnone/nilcases", "realcode/successors"];
const RUNS = 3;

let dir: string;
const file = (name: string) => join(dir, name);

/** Every file under `root`, relative. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort();
}

function collectArgs(db: string): string[] {
  return ["collect", CORPUS, ...PROGRAMS.flatMap((p) => ["--program", p]), "--runs", String(RUNS), "--db", db];
}

/** Per run: ingest status, events stored. */
function stored(db: string): { id: number; status: string | null; events: number; trace: string | null }[] {
  const d = openDatabase(db);
  try {
    return d
      .prepare(
        `SELECT r.id, r.ingest_status AS status, r.trace_path AS trace,
           (SELECT count(*) FROM event_records e WHERE e.run_id = r.id) AS events
         FROM runs r ORDER BY r.id`,
      )
      .all() as { id: number; status: string | null; events: number; trace: string | null }[];
  } finally {
    d.close();
  }
}

let first: ReturnType<typeof stored>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-drop-traces-"));
  const collected = await runCli([...collectArgs(file("dropped.db")), "--traces", file("traces"), "--drop-traces"]);
  expect(collected.code, collected.stderr).toBe(0);
  expect(collected.stdout).toMatch(/the traces of the 6 stored were deleted \(--drop-traces\)/);
  first = stored(file("dropped.db"));
}, 600_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("collect --drop-traces", () => {
  test("stores every run and deletes its trace; the files beside it stay", () => {
    expect(first).toHaveLength(PROGRAMS.length * RUNS);
    for (const run of first) {
      expect(run.status).toBe("ok");
      expect(run.events).toBeGreaterThan(0);
      expect(run.trace).not.toBeNull();
      expect(existsSync(run.trace!)).toBe(false);
    }
    const left = filesUnder(file("traces"));
    expect(left.filter((f) => f.endsWith(".trace"))).toEqual([]);
    // Each run's goroutine leak profile (the runtime's proof, read by leaks) is kept beside where its trace was.
    expect(left.filter((f) => f.endsWith(".trace.goroutineleak.txt"))).toHaveLength(first.length);
  });

  test("a second collect runs nothing again; ingest --force leaves the runs as stored and says so", async () => {
    const again = await runCli([...collectArgs(file("dropped.db")), "--traces", file("traces"), "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(stored(file("dropped.db"))).toEqual(first);
    const forced = await runCli(["ingest", "--db", file("dropped.db"), "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(
      new RegExp(`${first.length} run\\(s\\) left as stored: their traces were dropped after their ingest`),
    );
    expect(stored(file("dropped.db"))).toEqual(first);
  });

  test("leaks find the same bugs, with no trace to open; a replay says why it cannot run", async () => {
    const db = openDatabase(file("dropped.db"));
    let runId: number;
    try {
      const analysis = await analyseLeaks(db, { save: false });
      const bugs = analysis.bugs;
      expect(bugs.length).toBeGreaterThan(0);
      expect(bugs.every((b) => b.trace === null)).toBe(true);
      runId = bugs[0].runIds[0];
    } finally {
      db.close();
    }
    const replay = await runCli(["collect", "--replay", String(runId), "--db", file("dropped.db")]);
    expect(replay.code).not.toBe(0);
    expect(replay.stderr).toMatch(/trace .* is gone \(collect --drop-traces deletes/);
  });

  test("is refused without the ingest", async () => {
    const refused = await runCli([...collectArgs(file("refused.db")), "--no-ingest", "--drop-traces"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--drop-traces says what the ingest keeps/);
    expect(refused.stderr).toMatch(/schedlab ingest --drop-traces` later/);
  });
});
