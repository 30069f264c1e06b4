// The run agent end to end (test/fixtures/agent, a go 1.12 module, no manifests): a deadlocked
// test collected without --timeout (go test's 10 minutes) is stopped within seconds as proven
// hung, with the runtime's leaked goroutines recorded under the trace's goroutine ids; a test
// idle on a timer is not stopped; a package with its own TestMain gets its end profile (and
// goleak as the agent's hook); a main program's end profile; a daemon runs to its deadline; a
// main deadlocked in every goroutine is stopped; --no-leak-profile turns it all off.

import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_DUMP_HEADER, AGENT_HANG_EXIT_CODE, GO_TEST_DEFAULT_TIMEOUT_MS } from "../../src/collect/index.js";
import { openDatabase, type SchedlabDatabase } from "../../src/store/index.js";
import { runCli } from "../helpers/cli.js";
import { parsedTrace, scratch } from "./helpers.js";

const AGENT = fileURLToPath(new URL("../fixtures/agent/", import.meta.url));

interface Run {
  readonly id: number;
  readonly name: string;
  readonly outcome: string;
  readonly exitCode: number | null;
  readonly wallMs: number;
  readonly stopReason: string | null;
  readonly leakProfile: string | null;
  readonly dumpPath: string | null;
  readonly tracePath: string;
  readonly truncated: number;
  readonly stderrTail: string;
  readonly env: string;
}

function runsOf(db: SchedlabDatabase, name: string): Run[] {
  return db
    .prepare(
      `SELECT r.id, p.name, r.outcome, r.exit_code AS exitCode, r.wall_ms AS wallMs, r.stop_reason AS stopReason,
         r.leak_profile AS leakProfile, r.dump_path AS dumpPath, r.trace_path AS tracePath, r.truncated,
         r.stderr_tail AS stderrTail, r.env
       FROM runs r JOIN programs p ON p.id = r.program_id WHERE p.name = ? ORDER BY r.run_index`,
    )
    .all(name) as Run[];
}

/** The runtime's goroutines of a run, with the trace's canonical id of the same gid (null: not a user goroutine). */
function runtimeGoroutines(db: SchedlabDatabase, runId: number) {
  return db
    .prepare(
      `SELECT g.gid, g.taken, g.wait, g.leaked, g.top, u.canonical_id AS canonicalId
       FROM runtime_goroutines g LEFT JOIN goroutines u ON u.run_id = g.run_id AND u.gid = g.gid
       WHERE g.run_id = ? ORDER BY g.gid`,
    )
    .all(runId) as {
    gid: number;
    taken: string;
    wait: string;
    leaked: number;
    top: string | null;
    canonicalId: string | null;
  }[];
}

function firstLine(file: string): string {
  return readFileSync(file, "utf8").split("\n")[0];
}

describe("the run agent in test binaries", () => {
  const dir = scratch("agent-tests");
  let db: SchedlabDatabase;
  beforeAll(async () => {
    // No --timeout and no manifest: each test binary's runs get go test's own 10 minutes.
    const result = await runCli([
      "collect",
      join(AGENT, "hang"),
      join(AGENT, "patient"),
      join(AGENT, "ownmain"),
      "--runs",
      "2",
      "--procs",
      "2",
      "--jobs",
      "2",
      "--db",
      join(dir, "s.db"),
      "--traces",
      join(dir, "traces"),
      "--quiet",
    ]);
    expect(result.stderr).toBe("");
    db = openDatabase(join(dir, "s.db"));
  }, 120_000);
  afterAll(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stops a deadlocked test within seconds of go test's 10-minute deadline, as proven hung", async () => {
    const runs = runsOf(db, "hang");
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(run).toMatchObject({ outcome: "timeout", exitCode: AGENT_HANG_EXIT_CODE, stopReason: "hang" });
      expect(JSON.parse(run.env)).toMatchObject({ SCHEDLAB_DEADLINE_MS: String(GO_TEST_DEFAULT_TIMEOUT_MS) });
      expect(run.wallMs).toBeLessThan(5_000);
      expect(run.stderrTail).toContain("schedlab-agent: the runtime proved this run hung: goroutine 1 can never go on");
      expect(firstLine(run.dumpPath!)).toMatch(
        new RegExp(`^${AGENT_DUMP_HEADER}code=125 wait="chan receive" after=\\d+ms$`),
      );
      expect(firstLine(run.leakProfile!)).toBe("# schedlab-agent taken=hang");
      expect(run.truncated).toBe(0);
    }
    // The agent stopped the tracer before exiting: the trace is complete.
    expect((await parsedTrace(runs[0].tracePath)).exitCode).toBe(0);
  });

  it("records the runtime's leaked goroutines under the trace's goroutine ids", () => {
    for (const run of runsOf(db, "hang")) {
      const leaked = runtimeGoroutines(db, run.id).filter((g) => g.leaked === 1);
      expect(leaked.map((g) => [g.wait, g.canonicalId, g.top])).toEqual([
        // Goroutine 1, the testing driver, waits for the test forever: not a user goroutine.
        ["chan receive", null, null],
        ["chan receive", "TestTransferDeadlocks", "schedlab.dev/fixtures/agent/hang.(*Ledger).Transfer ledger.go:28"],
        [
          "sync.Mutex.Lock",
          "TestTransferDeadlocks/hang.(*Ledger).Transfer.func1@ledger.go:21#0",
          "schedlab.dev/fixtures/agent/hang.(*Ledger).Transfer.func1 ledger.go:22",
        ],
      ]);
      expect(leaked[0].gid).toBe(1);
      expect(new Set(runtimeGoroutines(db, run.id).map((g) => g.taken))).toEqual(new Set(["hang"]));
    }
    // The agent's own goroutines are never the user's.
    const injected = db
      .prepare(
        "SELECT count(*) AS n FROM goroutines WHERE entry LIKE '%schedlabAgent%' OR canonical_id LIKE '%schedlabAgent%'",
      )
      .get() as { n: number };
    expect(injected.n).toBe(0);
  });

  it("does not stop a test that waits 3 s for a timer: idle, not hung", () => {
    for (const run of runsOf(db, "patient")) {
      expect(run).toMatchObject({ outcome: "ok", exitCode: 0, stopReason: null });
      expect(run.wallMs).toBeGreaterThanOrEqual(3_000);
      expect(firstLine(run.leakProfile!)).toBe("# schedlab-agent taken=end");
    }
  });

  it("takes the end profile of a package with its own TestMain, after its cleanup and os.Exit", () => {
    for (const run of runsOf(db, "ownmain")) {
      expect(run).toMatchObject({ outcome: "ok", exitCode: 0, stopReason: null });
      expect(run.stderrTail).toContain("ownmain: cleaned up");
      expect(firstLine(run.leakProfile!)).toBe("# schedlab-agent taken=end");
      expect(runtimeGoroutines(db, run.id).map((g) => [g.taken, g.wait, g.leaked, g.top, g.canonicalId])).toEqual([
        [
          "end",
          "chan send",
          1,
          "schedlab.dev/fixtures/agent/ownmain.Lookup.func1 cache.go:7",
          "TestLookupDropped/ownmain.Lookup.func1@cache.go:7#0",
        ],
      ]);
    }
  });

  it("runs goleak as the agent's end-of-run hook in a package with its own TestMain", async () => {
    const peers = scratch("agent-peers");
    try {
      const result = await runCli([
        "collect",
        join(AGENT, "ownmain"),
        "--runs",
        "1",
        "--procs",
        "2",
        "--peers",
        "goleak,leakprofile",
        "--db",
        join(peers, "s.db"),
        "--traces",
        join(peers, "traces"),
        "--no-ingest",
        "--json",
      ]);
      const [program] = (
        JSON.parse(result.stdout) as {
          programs: { build: string; buildOutput?: string; runs: { outcome: string; trace: string }[] }[];
        }
      ).programs;
      expect(program.build).toBe("ok");
      expect(program.buildOutput ?? "").not.toContain("TestMain");
      expect(program.runs[0].outcome).toBe("ok");
      const goleak = readFileSync(`${program.runs[0].trace}.goleak.txt`, "utf8");
      expect(goleak).toContain("found unexpected goroutines");
      expect(goleak).toContain("ownmain.Lookup.func1");
      expect(firstLine(`${program.runs[0].trace}.goroutineleak.txt`)).toBe("# schedlab-agent taken=end");
    } finally {
      rmSync(peers, { recursive: true, force: true });
    }
  }, 60_000);

  it("--no-leak-profile: no agent, no profile; the deadlock waits for its deadline", async () => {
    const off = scratch("agent-off");
    try {
      const result = await runCli([
        "collect",
        join(AGENT, "hang"),
        "--runs",
        "1",
        "--timeout",
        "2s",
        "--no-leak-profile",
        "--db",
        join(off, "s.db"),
        "--traces",
        join(off, "traces"),
        "--no-ingest",
        "--quiet",
      ]);
      expect(result.code).toBe(0);
      const store = openDatabase(join(off, "s.db"));
      try {
        const [run] = runsOf(store, "hang");
        expect(run).toMatchObject({ outcome: "timeout", stopReason: "deadline", leakProfile: null });
        expect(Object.keys(JSON.parse(run.env)).filter((k) => k.startsWith("SCHEDLAB_AGENT"))).toEqual([]);
        expect(existsSync(`${run.tracePath}.goroutineleak.txt`)).toBe(false);
        expect(run.stderrTail).toContain("panic: test timed out after 2s");
      } finally {
        store.close();
      }
    } finally {
      rmSync(off, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("the run agent in main programs", () => {
  const dir = scratch("agent-mains");
  let db: SchedlabDatabase;
  beforeAll(async () => {
    const result = await runCli([
      "collect",
      join(AGENT, "cmd"),
      "--runs",
      "1",
      "--procs",
      "2",
      "--timeout",
      "3s",
      "--db",
      join(dir, "s.db"),
      "--traces",
      join(dir, "traces"),
      "--quiet",
    ]);
    expect(result.stderr).toBe("");
    db = openDatabase(join(dir, "s.db"));
  }, 120_000);
  afterAll(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("takes the end profile after main returns: the dropped sender is leaked", () => {
    const [run] = runsOf(db, "endleak");
    expect(run).toMatchObject({ outcome: "ok", stopReason: null });
    expect(firstLine(run.leakProfile!)).toBe("# schedlab-agent taken=end");
    expect(runtimeGoroutines(db, run.id).map((g) => [g.wait, g.leaked, g.top, g.canonicalId])).toEqual([
      ["chan send", 1, "main.start.func1 main.go:13", "main.main/main.start.func1@main.go:13#0"],
    ]);
  });

  it("does not stop a daemon (select {} in main, a ticker alive): it runs to its deadline", () => {
    const [run] = runsOf(db, "daemon");
    expect(run).toMatchObject({ outcome: "timeout", exitCode: 124, stopReason: "deadline" });
    expect(run.wallMs).toBeGreaterThanOrEqual(2_900);
    expect(firstLine(run.dumpPath!)).toBe("# schedlab-harness stop=deadline code=124");
    expect(firstLine(run.leakProfile!)).toBe("# schedlab-agent taken=deadline");
    const goroutines = runtimeGoroutines(db, run.id);
    expect(goroutines.find((g) => g.gid === 1)).toMatchObject({ wait: "select (no cases)", leaked: 1 });
    expect(goroutines.find((g) => g.top === "main.main.func1 main.go:12")).toMatchObject({
      leaked: 0,
      canonicalId: "main.main/main.main.func1@main.go:10#0",
    });
  });

  it("stops a main program deadlocked in every goroutine as proven hung", async () => {
    const [run] = runsOf(db, "deadlock");
    expect(run).toMatchObject({ outcome: "timeout", exitCode: AGENT_HANG_EXIT_CODE, stopReason: "hang" });
    expect(run.wallMs).toBeLessThan(2_500);
    expect(firstLine(run.dumpPath!)).toMatch(new RegExp(`^${AGENT_DUMP_HEADER}code=125 wait="chan receive" after=`));
    expect(
      runtimeGoroutines(db, run.id)
        .filter((g) => g.leaked === 1)
        .map((g) => [g.gid === 1 ? 1 : "worker", g.wait, g.canonicalId]),
    ).toEqual([
      [1, "chan receive", "main.main"],
      ["worker", "sync.Mutex.Lock", "main.main/main.main.func1@main.go:18#0"],
    ]);
    expect((await parsedTrace(run.tracePath)).exitCode).toBe(0);
  });
});
