// End to end on real runs: the leak fixtures (every block reason, a deadlock, schedule-
// dependent leaks, a ticker loop stopped by the deadline, a clean pool, a leaking test)
// are collected 3 times each, ingested, analysed, stored, printed and scored; and failing
// tests, a crash and a crash only the tracer causes are reported for what they are.

import { rmSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { blockedForeverInRun } from "../../src/collect/index.js";
import { goToolchain } from "../../src/go/index.js";
import { goHelperPath } from "../../src/gohelper/index.js";
import {
  analyseLeaks,
  analyseProgramRuns,
  clopperPearsonUpper,
  detectLeaks,
  loadFindings,
  waitSourceOf,
  scoreLeaks,
  storedPrograms,
  type LeakAnalysis,
  type LeakFinding,
} from "../../src/leaks/index.js";
import { runEndedByCrash } from "../../src/model/index.js";
import { runCli } from "../helpers/cli.js";
import { collectFixtures, type Collected } from "./collected.js";

let collected: Collected;
let analysis: LeakAnalysis;

beforeAll(async () => {
  collected = await collectFixtures();
  analysis = await analyseLeaks(collected.db);
}, 600_000);

afterAll(() => {
  collected?.db.close();
  if (collected !== undefined) rmSync(collected.dir, { recursive: true, force: true });
});

function findingsOf(program: string): LeakFinding[] {
  return analysis.findings.filter((f) => f.program === program);
}

describe("leak detection on collected runs", () => {
  test.each([
    ["select-leak", "main.go:23", "select", true],
    ["chan-recv-leak", "main.go:14", "chan receive", false],
    ["mutex-leak", "main.go:13", "sync", false],
    ["cond-leak", "main.go:14", "sync.(*Cond).Wait", false],
    ["forever-leak", "main.go:11", "forever", false],
    ["leaky-test", "lookup.go:10", "chan send", false],
  ])("%s: the goroutine created at %s leaks in every run, blocked in %s", (program, site, reason, formal) => {
    const [finding, ...rest] = findingsOf(program);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      creationSiteKey: site,
      reason,
      formal,
      kind: "leak",
      gating: true,
      runsSeen: 3,
      runsBlocked: 3,
      runsWoken: 0,
    });
    // Proven by the runtime's leak profile (the agent's, at the run's end), or by select {} / a nil channel; else likely.
    expect(finding.verdict).toBe(finding.evidence.runtime === "leaked" || reason === "forever" ? "proven" : "likely");
    if (finding.evidence.runtime === "leaked") expect(finding.why).toMatch(/^proven by the runtime/);
    // The bound counts the wake-ups from that wait within runs.
    expect(finding.pUnblockUpper).toBeCloseTo(clopperPearsonUpper(finding.wakesAtSite, 3 + finding.wakesAtSite), 12);
    expect(finding.blockingSite).toMatch(/\.go:\d+$/);
    expect(finding.early.firstDepthAllRuns).toBe(finding.early.firstDepthAllBlockedRuns);
    expect(finding.early.curve[finding.early.curve.length - 1].runsHolding).toBe(3);
  });

  test("the worker woken for every job before it leaks still counts: its last block is never followed by GoUnblock", () => {
    const [finding] = findingsOf("chan-recv-leak");
    expect(finding.early.runsFalseAlarm).toBe(3);
  });

  test("a WaitGroup hang is a deadlock of the root goroutine", () => {
    expect(findingsOf("wg-deadlock").map((f) => [f.goroutine, f.reason, f.kind, f.isRoot, f.runsBlocked])).toEqual([
      ["main.main", "sync", "deadlock", true, 3],
    ]);
  });

  test("schedule-dependent leaks: every run leaves exactly the losers blocked, whichever they are", () => {
    const send = findingsOf("chan-send-leak");
    expect(send.every((f) => f.creationSiteKey === "main.go:12" && f.reason === "chan send" && f.runsSeen === 3)).toBe(
      true,
    );
    // Three senders, one result read: two senders are left in each of the 3 runs.
    expect(send.reduce((n, f) => n + f.runsBlocked, 0)).toBe(6);
    for (const f of send) expect(f.blockedFraction).toBeCloseTo(f.runsBlocked / 3, 12);
    const race = findingsOf("race-leak");
    expect(race.reduce((n, f) => n + f.runsBlocked, 0)).toBe(3);
    expect(race.map((f) => f.creationSiteKey).every((s) => s === "main.go:21" || s === "main.go:22")).toBe(true);
  });

  test("no findings on clean programs, including a ticker loop the deadline stopped mid-wait", () => {
    expect(findingsOf("pool-clean")).toEqual([]);
    expect(findingsOf("ticker-clean")).toEqual([]);
    const ticker = collected.db
      .prepare(
        "SELECT DISTINCT r.outcome FROM runs r JOIN programs p ON p.id = r.program_id WHERE p.name = 'ticker-clean'",
      )
      .all();
    expect(ticker).toEqual([{ outcome: "timeout" }]);
  });

  test("findings are stored per program", () => {
    const [program] = storedPrograms(collected.db, "cond-leak");
    expect(loadFindings(collected.db, program.id)).toEqual(findingsOf("cond-leak"));
  });
});

describe("schedlab leaks", () => {
  test("--json lists the findings with the contract fields", async () => {
    const hang = JSON.parse(
      (await runCli(["leaks", "--db", collected.dbFile, "--program", "hang-test", "--json"])).stdout,
    ) as { findings: { goroutine: string; test: string | null }[] };
    expect(hang.findings.length).toBeGreaterThan(0);
    expect(hang.findings.every((f) => f.test !== null && f.goroutine.startsWith(f.test.split("/")[0]))).toBe(true);
    const result = await runCli(["leaks", "--db", collected.dbFile, "--program", "select-leak", "--json"]);
    expect(result.code).toBe(0);
    const { findings } = JSON.parse(result.stdout) as { findings: Record<string, unknown>[] };
    expect(findings).toHaveLength(1);
    expect(Object.keys(findings[0]).slice(0, 10)).toEqual([
      "program",
      "goroutine",
      "reason",
      "kind",
      "formal",
      "creationSite",
      "blockingSite",
      "runsSeen",
      "runsBlocked",
      "pUnblockUpper",
    ]);
    expect(findings[0]).toMatchObject({
      program: "select-leak",
      reason: "select",
      kind: "leak",
      formal: true,
      runsSeen: 3,
      runsBlocked: 3,
    });
    expect(findings[0].creationSite).toMatch(/^main\.main .*main\.go:23$/);
  });

  test("--fail-on-leak exits 3 on findings and 0 on a clean program; the table names the bound", async () => {
    const leaking = await runCli(["leaks", "--db", collected.dbFile, "--program", "mutex-leak", "--fail-on-leak"]);
    expect(leaking.code).toBe(3);
    // Grouped under the program, the goroutine as its entry chain; the full id is in --json.
    expect(leaking.stdout).toMatch(
      /^Blocked forever \(counted by --fail-on-leak\):\nmutex-leak\n {2}verdict +goroutine +reason +kind +created at/m,
    );
    expect(leaking.stdout).toMatch(/^ {2}(proven|likely) +main\.main\.func1 +sync +leak +main\.go:13 /m);
    expect(leaking.stdout).toContain("Clopper-Pearson");
    const clean = await runCli(["leaks", "--db", collected.dbFile, "--program", "pool-clean", "--fail-on-leak"]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain("No leaked or deadlocked goroutines in 1 program(s).");
  });

  test("an unknown program or a missing database is a clear error", async () => {
    const unknown = await runCli(["leaks", "--db", collected.dbFile, "--program", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no program named "nope"');
    const missing = await runCli(["leaks", "--db", `${collected.dir}/absent.db`]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("schedlab collect");
  });
});

describe("scoring against manifests", () => {
  test("schedlab finds every labelled goroutine but the race's other loser, with no false positive; the dump flags the ticker", async () => {
    const report = await scoreLeaks(collected.db);
    expect(report).toMatchObject({ labelledPrograms: 12, unlabelledPrograms: 0 });
    const own = report.detectors.find((d) => d.detector === "schedlab");
    expect(own?.programsCovered).toBe(12);
    expect(own?.score.overall.falsePositives).toBe(0);
    expect(own?.score).toMatchObject({ cleanPrograms: 2, cleanProgramsFlagged: 0 });
    const missed = own?.score.programs.flatMap((p) => p.missed.map((e) => `${p.program} ${e.site}`)) ?? [];
    expect(missed.length).toBeLessThanOrEqual(1);
    expect(missed.every((m) => m.startsWith("race-leak "))).toBe(true);
    expect(own?.score.byReason["select"]).toMatchObject({ truePositives: 1, falsePositives: 0, missed: 0 });
    const dump = report.detectors.find((d) => d.detector === "dump");
    expect(dump?.score.programs.find((p) => p.program === "ticker-clean")?.falsePositives).toEqual([
      { program: "ticker-clean", siteKey: null, root: "main.main", reason: "select" },
    ]);
  });

  test("--score prints the detector table", async () => {
    const result = await runCli(["leaks", "--db", collected.dbFile, "--score"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^schedlab\s+\d+\s+0\s+[01]\s+1\.000/m);
    expect(result.stdout).toMatch(/^dump\s+/m);
  });
});

describe("one rule", () => {
  test("collect's per-run check (the trace file) and leaks (the database) judge every run alike", async () => {
    const go = await goToolchain();
    const helper = await goHelperPath();
    let judged = 0;
    for (const program of storedPrograms(collected.db)) {
      const waitSourceAt = waitSourceOf(program.dir, helper);
      const rows = collected.db
        .prepare("SELECT id, outcome, trace_path, stderr_tail, wall_ms FROM runs WHERE program_id = ?")
        .all(program.id) as {
        id: number;
        outcome: "ok" | "exit-error" | "panic" | "timeout" | "killed";
        trace_path: string;
        stderr_tail: string | null;
        wall_ms: number;
      }[];
      for (const run of analyseProgramRuns(collected.db, program).runs) {
        const row = rows.find((r) => r.id === run.run.runId)!;
        const tracePath = isAbsolute(row.trace_path)
          ? row.trace_path
          : resolve(dirname(collected.dbFile), row.trace_path);
        const fromTrace = await blockedForeverInRun(
          { outcome: row.outcome, tracePath, stderrTail: row.stderr_tail ?? undefined, wallMs: row.wall_ms },
          program.kind,
          go,
          waitSourceAt,
        );
        const fromDatabase = detectLeaks({ program: program.name, runs: [run] }, { waitSourceAt }).filter(
          (f) => f.gating,
        );
        expect(fromTrace.map((b) => b.goroutine).sort(), `${program.name} run ${run.run.runIndex}`).toEqual(
          fromDatabase.map((f) => f.goroutine).sort(),
        );
        judged++;
      }
    }
    expect(judged).toBeGreaterThanOrEqual(30);
  });
});

describe("failures as findings", () => {
  const FAILURES = fileURLToPath(new URL("../fixtures/failures/", import.meta.url));
  let failures: Collected;

  beforeAll(async () => {
    failures = await collectFixtures(
      ["tracercrash", "poolpanic", "examplefail"].map((p) => join(FAILURES, p)),
      { runs: 2, timeoutMs: 10_000 },
    );
  }, 120_000);

  afterAll(() => {
    failures?.db.close();
    if (failures !== undefined) rmSync(failures.dir, { recursive: true, force: true });
  });

  test("a crash only the tracer causes is tracer-induced after its untraced rerun passed: listed apart, never a crash or a gate's", async () => {
    const result = await runCli(["leaks", "--db", failures.dbFile, "--json", "--fail-on-failing"]);
    // The pool panic and the failing Example fail the gate; the tracer's crash does not.
    expect(result.code).toBe(5);
    const json = JSON.parse(result.stdout) as {
      failing: { program: string; test: string; message: string; runsFailed: number }[];
      crashed: {
        program: string;
        test: string;
        kind: string;
        header: string;
        stack: string[];
        untraced: string | null;
      }[];
      tracerInduced: { program: string; test: string; kind: string; message: string; runs: number; untraced: string }[];
      counts: Record<string, number>;
    };
    expect(json.tracerInduced).toEqual([
      expect.objectContaining({
        program: "tracercrash",
        test: "TestCrashUnderTracer",
        kind: "fatal",
        runs: 2,
        untraced: "ok",
        message: expect.stringMatching(/^SIGABRT: abort — crashed only under the execution tracer/),
      }),
    ]);
    expect(json.crashed).toEqual([
      expect.objectContaining({
        program: "poolpanic",
        test: "TestSubmit",
        kind: "panic",
        header: "panic: assignment to entry in nil map",
        stack: ["poolpanic.(*Pool).run pool_test.go:23"],
        untraced: null,
      }),
    ]);
    expect(json.failing).toEqual([
      expect.objectContaining({
        program: "examplefail",
        test: "Example_greeting",
        message: "got:\nhello\nworld\nwant:\nhello\nthere",
        runsFailed: 2,
      }),
    ]);
    expect(json.counts.failing).toBe(2);
    // Every run of tracercrash ended by a crash: its SIGABRT header is in the digest.
    const rows = failures.db
      .prepare(
        "SELECT r.outcome, r.stderr_tail, r.output_digest FROM runs r JOIN programs p ON p.id = r.program_id WHERE p.name = 'tracercrash'",
      )
      .all() as { outcome: "exit-error"; stderr_tail: string | null; output_digest: string | null }[];
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(runEndedByCrash(row.outcome, row.stderr_tail, row.output_digest)).toBe(true);
  });

  test("the text output says so in sections of their own", async () => {
    const { stdout } = await runCli(["leaks", "--db", failures.dbFile]);
    expect(stdout).toContain(
      "Failing tests (failed in every run that finished, plain runs included; --fail-on-failing): 1 test",
    );
    expect(stdout).toContain(
      "FAILING  examplefail  Example_greeting  failed in 2 runs (2 plain)\n    got:\n    hello\n    world\n    want:",
    );
    expect(stdout).toContain(
      "CRASH panic  poolpanic  TestSubmit  in 2 runs\n    panic: assignment to entry in nil map\n        poolpanic.(*Pool).run pool_test.go:23",
    );
    expect(stdout).toMatch(
      /Failures caused by the tracer itself, not by the code .*\n {2}tracercrash TestCrashUnderTracer \(2 runs\): fatal SIGABRT: abort — crashed only under the execution tracer/,
    );
  });
});
