// collect --budget end to end on the exploration probes (test/fixtures/collect/explore):
// a tight AB-BA that only perturbation exposes, a data race only -race sees (recorded, but
// with the default --stop-on leak it does not end the hunt), a clean pool that must stay
// clean, and replays of the race and of the perturbed finding from its recorded seed.
// GOMAXPROCS 1 keeps the Go scheduler close to deterministic; the race replay must show its
// race again, the perturbed one is checked for what it ran and recorded and for reporting
// honestly whether the finding showed (timers still move a perturbed schedule).

import Database from "better-sqlite3";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  buildProgram,
  collect,
  DEFAULT_REPLAY_ATTEMPTS,
  replayRun,
  runFiles,
  sameFinding,
  tracedRun,
  writePerturbOverlay,
  type CollectResult,
  type ExplorationSummary,
  type RunConfig,
} from "../../src/collect/index.js";
import { discoverPrograms } from "../../src/corpus/index.js";
import { goToolchain } from "../../src/go/index.js";
import { decodeTrace } from "../../src/trace/index.js";
import type { GoroutineRecord } from "../../src/core/index.js";
import { runCli } from "../helpers/cli.js";
import { FIXTURES, PROGRAMS, parsedTrace, scratch } from "./helpers.js";

const EXPLORE = join(FIXTURES, "explore");
let dir: string;
let result: CollectResult;
const explored: ExplorationSummary[] = [];

function exploration(name: string): ExplorationSummary {
  const program = result.programs.find((p) => p.name === name);
  expect(program?.exploration, name).toBeDefined();
  return program!.exploration!;
}

beforeAll(async () => {
  dir = scratch("explore");
  result = await collect({
    paths: [EXPLORE],
    budgetMs: 8_000,
    procs: [1],
    timeoutMs: 2_000,
    jobs: 2,
    db: join(dir, "s.db"),
    traces: join(dir, "traces"),
    onExplored: (e) => explored.push(e),
  });
});

/**
 * What an exhausted hunt of the 8 s budget has spent at least: a run is started only when it
 * fits what is left, so the budget is spent up to less than one run (and the check after it).
 */
function budgetSpentAtLeast(e: { readonly plainRunMs: number | null }): number {
  return 8_000 - 3 * (e.plainRunMs ?? 0) - 2_000;
}

describe("collect --budget", () => {
  it("finds the tight AB-BA by a seeded perturbation and stops there", () => {
    const e = exploration("abba-tight");
    expect(e.status).toBe("confirmed");
    expect(e.finding!.strategy).toBe("perturb");
    expect(e.finding!.seed).toEqual(expect.any(Number));
    expect(e.finding!.config).toMatch(/^procs-1-perturb(-count-20)?$/);
    expect(e.finding!.check.finding).toBe("blocked");
    expect(e.finding!.class).toBe("leak");
    expect(e.stopOn).toEqual(["leak"]);
    expect(new Set(e.finding!.check.blocked.map((b) => `${b.reason} ${b.site?.split(" ")[1]}`))).toEqual(
      new Set(["sync abba_test.go:19", "sync abba_test.go:28"]),
    );
    // Stopped at the finding: the run that confirmed it is the last one.
    expect(e.runs).toBe(e.finding!.atRun);
    expect(e.finding!.replay).toBe(`schedlab collect --replay ${e.finding!.runId} --db ${join(dir, "s.db")}`);
  });

  it("finds the data race with a -race build, keeps the report beside the trace, and goes on hunting until the budget is spent", () => {
    const e = exploration("racy-counter");
    // The default stop set is leak: a race is recorded and summarised, and never ends the hunt.
    expect(e).toMatchObject({ status: "exhausted", finding: null, stopOn: ["leak"] });
    expect(e.spentMs).toBeGreaterThanOrEqual(budgetSpentAtLeast(e));
    const race = e.findings.find((f) => f.class === "race")!;
    expect(race).toMatchObject({ strategy: "race", seed: null, config: "procs-1-race" });
    expect(race.check).toMatchObject({ finding: "race", classes: ["race"], races: 1 });
    expect(e.runs).toBeGreaterThan(race.atRun!);
    expect(e.findings.map((f) => f.class)).toEqual(["race"]);
    const run = result.programs.find((p) => p.name === "racy-counter")!.runs.find((r) => r.id === race.runId)!;
    const races = readFileSync(`${run.trace!}.races.txt`, "utf8");
    expect(races).toContain("WARNING: DATA RACE");
    expect(races).toContain("counter_test.go:18"); // visits++
  });

  it("spends the whole budget on a clean program and reports nothing", () => {
    const e = exploration("clean-pool");
    expect(e).toMatchObject({ status: "exhausted", finding: null, unavailable: [], cutRuns: 0, hungRuns: 0 });
    expect(e.spentMs).toBeGreaterThanOrEqual(budgetSpentAtLeast(e));
    expect(e.spentMs).toBeLessThanOrEqual(8_000 + 2 * (e.plainRunMs ?? 0) + 2_000);
    const strategies = new Set(
      result.programs.find((p) => p.name === "clean-pool")!.runs.map((r) => r.strategy ?? "plain"),
    );
    expect(strategies).toEqual(new Set(["plain", "perturb", "race"]));
  });

  it("records every run's strategy, seed and GOMAXPROCS, a check per run, and one exploration row per program", () => {
    const db = new Database(join(dir, "s.db"), { readonly: true });
    try {
      const runs = db.prepare("SELECT config, procs, strategy, seed, env FROM runs").all() as {
        config: string;
        procs: number;
        strategy: string;
        seed: number | null;
        env: string;
      }[];
      expect(runs.length).toBeGreaterThan(10);
      for (const run of runs) {
        expect(run.procs).toBe(1);
        expect(run.config.includes(`-${run.strategy}`) || run.strategy === "plain").toBe(true);
        const env = JSON.parse(run.env) as Record<string, string>;
        if (run.strategy === "perturb") expect(env.SCHEDLAB_PERTURB_SEED).toBe(String(run.seed));
        else expect(run.seed).toBeNull();
        if (run.strategy === "race") expect(env.GORACE).toContain("atexit_sleep_ms=0");
      }
      const unchecked = db
        .prepare("SELECT count(*) AS n FROM runs r LEFT JOIN run_checks c ON c.run_id = r.id WHERE c.run_id IS NULL")
        .get() as { n: number };
      expect(unchecked.n).toBe(0);
      const rows = db
        .prepare("SELECT p.name, e.status FROM explorations e JOIN programs p ON p.id = e.program_id ORDER BY p.name")
        .all();
      expect(rows).toEqual([
        { name: "abba-tight", status: "confirmed" },
        { name: "clean-pool", status: "exhausted" },
        { name: "racy-counter", status: "exhausted" },
        { name: "rwrecursive-tight", status: exploration("rwrecursive-tight").status },
      ]);
    } finally {
      db.close();
    }
    expect(explored.map((e) => e.program).sort()).toEqual([
      "abba-tight",
      "clean-pool",
      "racy-counter",
      "rwrecursive-tight",
    ]);
  });

  it("resumes: a second budgeted collect runs nothing for confirmed programs, and a wider stop set decides anew", async () => {
    const options = {
      paths: [join(EXPLORE, "racy-counter")],
      budgetMs: 8_000,
      procs: [1],
      timeoutMs: 2_000,
      jobs: 1,
      db: join(dir, "s2.db"),
      traces: join(dir, "traces2"),
    };
    const again = await collect({ ...options, stopOn: ["race"] as const });
    const first = again.programs[0]!.exploration!;
    expect(first).toMatchObject({ status: "confirmed", stopOn: ["race"] });
    expect(first.finding!).toMatchObject({ class: "race", config: "procs-1-race" });
    const id = first.finding!.runId;
    const resumed = await collect({ ...options, stopOn: ["race"] as const });
    expect(resumed.executed).toBe(0);
    expect(resumed.programs[0]!.exploration!.finding!.runId).toBe(id);
    // Under the default stop set the recorded race does not end the hunt: it goes on, and keeps the race among its findings.
    const spent = resumed.programs[0]!.exploration!.spentMs;
    const onLeak = await collect({ ...options, budgetMs: spent + 300 });
    expect(onLeak.executed).toBeGreaterThan(0);
    expect(onLeak.programs[0]!.exploration!).toMatchObject({ status: "exhausted", finding: null });
    expect(onLeak.programs[0]!.exploration!.findings[0]).toMatchObject({ class: "race", runId: id });
  });

  it("replays the race finding with its configuration and reproduces it", async () => {
    const finding = exploration("racy-counter").findings.find((f) => f.class === "race")!;
    const replay = await replayRun({ runId: finding.runId, db: join(dir, "s.db") });
    expect(replay).toMatchObject({ program: "racy-counter", config: "procs-1-race", seed: null, reproduced: true });
    expect(replay.replay.check).toMatchObject({ finding: "race" });
    expect(replay.attempts).toBeGreaterThanOrEqual(1);
    expect(replay.attempts).toBeLessThanOrEqual(DEFAULT_REPLAY_ATTEMPTS);
  });

  it("replays the perturbed finding with its seed, records every attempt, and says truthfully whether it showed", async () => {
    // A seed fixes every perturbation decision but not when a perturbation's µs sleep ends,
    // so a replay usually shows the finding again and not always: seed 272526946308518 of
    // abba-tight deadlocked once on a loaded machine and in none of 6 replays on an idle one.
    const finding = exploration("abba-tight").finding!;
    const replay = await replayRun({ runId: finding.runId, db: join(dir, "s.db") });
    expect(replay).toMatchObject({ program: "abba-tight", config: finding.config, seed: finding.seed });
    expect(replay.reproduced).toBe(sameFinding(replay.original.check, replay.replay.check));
    expect(replay.original.check.finding).toBe("blocked");
    // Stops at the first reproduction, else makes every attempt.
    expect(replay.attempts).toBeGreaterThanOrEqual(1);
    if (replay.reproduced) expect(replay.attempts).toBeLessThanOrEqual(DEFAULT_REPLAY_ATTEMPTS);
    else expect(replay.attempts).toBe(DEFAULT_REPLAY_ATTEMPTS);
    expect(replay.replay.runId).not.toBe(finding.runId);
    expect(existsSync(replay.replay.trace!)).toBe(true);
    const db = new Database(join(dir, "s.db"), { readonly: true });
    try {
      const attempts = db
        .prepare(
          "SELECT r.strategy, r.seed, r.config FROM run_checks c JOIN runs r ON r.id = c.run_id WHERE c.replay_of = ? ORDER BY r.id",
        )
        .all(finding.runId);
      expect(attempts).toEqual(
        Array.from({ length: replay.attempts }, () => ({
          strategy: "perturb",
          seed: finding.seed,
          config: finding.config,
        })),
      );
      expect(db.prepare("SELECT max(run_id) AS last FROM run_checks WHERE replay_of = ?").get(finding.runId)).toEqual({
        last: replay.replay.runId,
      });
    } finally {
      db.close();
    }
  });

  it("schedlab collect --replay --attempts: at most that many runs, and --attempts alone is a usage error", async () => {
    const finding = exploration("abba-tight").finding!;
    const out = await runCli([
      "collect",
      "--replay",
      String(finding.runId),
      "--attempts",
      "2",
      "--db",
      join(dir, "s.db"),
      "--json",
    ]);
    expect(out.code, out.stderr).toBe(0);
    const replay = JSON.parse(out.stdout) as { attempts: number; reproduced: boolean; original: { runId: number } };
    expect(replay.original.runId).toBe(finding.runId);
    expect(replay.attempts).toBeGreaterThanOrEqual(1);
    expect(replay.attempts).toBeLessThanOrEqual(2);
    // It stops at the first reproduction, so fewer than 2 runs means the first one reproduced.
    if (replay.attempts === 1) expect(replay.reproduced).toBe(true);
    const alone = await runCli(["collect", "go-programs", "--attempts", "2", "--db", join(dir, "unused.db")]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--attempts goes with --replay");
    expect(existsSync(join(dir, "unused.db"))).toBe(false);
  });
});

describe("seeded perturbation of a main program", () => {
  it("composes with the tracing harness, keeps the user's lines as sites, and does nothing without a seed", async () => {
    const go = await goToolchain();
    const [program] = (await discoverPrograms([join(PROGRAMS, "leak-select")])).programs;
    const work = scratch("perturb-main");
    const { points } = await writePerturbOverlay(program!.goFiles, { Replace: {} }, join(work, "points"));
    // waiter's Done and select (before it and at each case), the go statement in main's loop and main's Wait.
    expect(points.map((p) => `${p.kind} ${p.file}:${p.line}`)).toEqual([
      "done main.go:13",
      "select main.go:14",
      "select-case main.go:15",
      "select-case main.go:16",
      "go main.go:25",
      "wait main.go:27",
    ]);
    const build = await buildProgram({ ...program!, strategy: "perturb" }, go, join(work, "build"));
    expect(build.status, build.output).toBe("ok");
    const config: RunConfig = { key: "procs-1-perturb", strategy: "perturb", procs: 1, testCount: null };
    const run = async (index: number, seed: number | null) => {
      const result = (await tracedRun({
        kind: "main",
        dir: program!.dir,
        binary: build.binary!,
        testName: null,
        config,
        files: runFiles(join(work, "traces"), "leak-select", config.key, index),
        timeoutMs: 5_000,
        graceMs: 500,
        go,
        seed,
      }))!;
      expect(result.outcome).toBe("ok");
      expect((await parsedTrace(result.tracePath!)).exitCode).toBe(0);
      const records: GoroutineRecord[] = [];
      await decodeTrace(result.tracePath!, { mode: "main", goroot: go.goroot }, (batch) => records.push(...batch));
      return records;
    };
    // The program's own sleep (main.go:28) is not a perturbation; the harness's settle
    // sleeps after main returned are dropped by the decoder (docs/collect.md).
    const yields = (records: GoroutineRecord[]) =>
      records.filter(
        (r) =>
          ((r.kind === "GoSched" && r.reason === "runtime.Gosched") ||
            (r.kind === "GoBlock" && r.reason === "sleep")) &&
          r.site !== "main.main main.go:28",
      );
    expect(yields(await run(0, null))).toEqual([]);
    // Some seed among the first few acts at one of the six points (each is quiet with probability 1/4).
    let acted: GoroutineRecord[] = [];
    for (let seed = 1; seed <= 5 && acted.length === 0; seed++) acted = yields(await run(seed, seed));
    expect(acted.length).toBeGreaterThan(0);
    for (const r of acted) expect(r.site).toMatch(/^main\.(main|waiter) main\.go:(13|14|15|16|25|27)$/);
  });
});
