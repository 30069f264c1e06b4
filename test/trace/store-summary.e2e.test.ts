// ingest --store summary on real collections: budgeted hunts (lock recording, plain, race and
// perturbed runs) of our kernels of each blocking-bug class, of the leak fixtures and of a
// racy counter (hunted until -race reports it) are collected once, and the same database is
// ingested twice, with every event and as summaries. `leaks` must say exactly the same from
// both (findings, bugs, explanations, potential deadlocks, races, flaky tests), each run's
// stored end states must be its fold's, the summary database must hold no record; the
// commands that read events refuse it and name the re-ingest, which `ingest --store events`
// does; a replay and a merge work on it.

import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { collect, replayRun } from "../../src/collect/index.js";
import { analyseLeaks, type LeakAnalysis } from "../../src/leaks/index.js";
import { analyseRun, programLeakRuns, storedPrograms } from "../../src/leaks/load.js";
import { mergeDatabases, openDatabase, type SchedlabDatabase } from "../../src/store/index.js";
import { ingestRuns, loadRunRecords, pendingIngestCount, SummaryOnlyRunError } from "../../src/trace/index.js";
import { runCli } from "../helpers/cli.js";

const KERNELS = fileURLToPath(new URL("../../go-programs/kernels/", import.meta.url));
const KERNEL_PROGRAMS = [
  "abba/mirrorsync",
  "chancycle/compactionring",
  "wgmisuse/taskcount",
  "orphan/validateearly",
  "lockorder/catalogsync",
  "rwrecursive/quotareport",
  "condmiss/signalone",
  "doublelock/earlyreturn",
];
const FIXTURES = fileURLToPath(new URL("../fixtures/leaks/programs/", import.meta.url));
const FIXTURE_PROGRAMS = ["chan-send-leak", "mutex-leak", "race-leak", "ticker-clean", "hang-test", "leaky-test"];
const RACY = fileURLToPath(new URL("../fixtures/collect/explore/racy-counter/", import.meta.url));

let dir: string;
const file = (name: string) => join(dir, name);
let events: SchedlabDatabase;
let summary: SchedlabDatabase;
let fromEvents: LeakAnalysis;
let fromSummary: LeakAnalysis;

/** The analysis of `db` with the database's own path (in replay commands) made neutral. */
async function analysis(db: SchedlabDatabase): Promise<LeakAnalysis> {
  return JSON.parse(JSON.stringify(await analyseLeaks(db, { save: false })).replaceAll(db.name, "DB")) as LeakAnalysis;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-store-summary-"));
  const collected = file("collected.db");
  const common = { budgetMs: 3_000, timeoutMs: 3_000, jobs: 2, db: collected, traces: file("traces") };
  await collect({ ...common, paths: [KERNELS], programs: KERNEL_PROGRAMS });
  // The whole budget, so race-leak gets -race runs after its leak is confirmed.
  await collect({ ...common, paths: [FIXTURES], programs: FIXTURE_PROGRAMS, exhaustBudget: true });
  await collect({ ...common, paths: [RACY], stopOn: ["race"] as const });
  const db = openDatabase(collected);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  copyFileSync(collected, file("events.db"));
  copyFileSync(collected, file("summary.db"));
  events = openDatabase(file("events.db"));
  summary = openDatabase(file("summary.db"));
  await ingestRuns(events, { store: "events" });
  await ingestRuns(summary, { store: "summary" });
  fromEvents = await analysis(events);
  fromSummary = await analysis(summary);
}, 900_000);

afterAll(() => {
  events?.close();
  summary?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("--store summary", () => {
  test("leaks gives the same findings, bugs, explanations, potential deadlocks, races and flaky tests as from every event", () => {
    expect(fromEvents.bugs.length).toBeGreaterThan(5);
    expect(fromEvents.potentialDeadlocks.length).toBeGreaterThan(0);
    expect(fromEvents.bugs.some((b) => b.explained?.explanation.cycle != null)).toBe(true);
    expect(fromEvents.bugs.some((b) => b.explained?.explanation.waitsFor.some((w) => w.tookLockAt != null))).toBe(true);
    expect(fromEvents.races.length).toBeGreaterThan(0);
    expect(fromSummary.programs.map((p) => [p.program, p.runs])).toEqual(
      fromEvents.programs.map((p) => [p.program, p.runs]),
    );
    expect(fromSummary.findings).toEqual(fromEvents.findings);
    expect(fromSummary.bugs).toEqual(fromEvents.bugs);
    expect(fromSummary.potentialDeadlocks).toEqual(fromEvents.potentialDeadlocks);
    expect(fromSummary.blockedAtCrash).toEqual(fromEvents.blockedAtCrash);
    expect(fromSummary.races).toEqual(fromEvents.races);
    expect(fromSummary.flaky).toEqual(fromEvents.flaky);
    expect(fromSummary.tracerInduced).toEqual(fromEvents.tracerInduced);
    expect(fromSummary).toEqual(fromEvents);
  });

  test("each run's stored end states are what its records fold to", () => {
    let runs = 0;
    for (const program of storedPrograms(events)) {
      const eventRuns = programLeakRuns(events, program);
      const summaryRuns = programLeakRuns(summary, program);
      expect(summaryRuns).toEqual(eventRuns);
      eventRuns.forEach((run, i) => {
        expect(analyseRun(summary, summaryRuns[i]).states).toEqual(analyseRun(events, run).states);
        runs++;
      });
    }
    expect(runs).toBeGreaterThan(30);
  });

  test("keeps no record: only goroutines and one end-state row per run, with the run's record count", () => {
    const count = (db: SchedlabDatabase, table: string) =>
      db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    expect(count(summary, "event_records")).toBe(0);
    expect(count(summary, "lock_ops")).toBe(0);
    expect(count(events, "lock_ops")).toBeGreaterThan(0);
    expect(count(summary, "goroutines")).toBe(count(events, "goroutines"));
    const ingested = summary
      .prepare("SELECT id FROM runs WHERE ingest_status IN ('ok', 'truncated') ORDER BY id")
      .pluck()
      .all() as number[];
    expect(summary.prepare("SELECT DISTINCT store FROM runs WHERE ingest_status IS NOT NULL").pluck().all()).toEqual([
      "summary",
    ]);
    expect(events.prepare("SELECT DISTINCT store FROM runs").pluck().all()).toEqual(["events"]);
    const rows = summary.prepare("SELECT run_id AS runId, records FROM run_end_states ORDER BY run_id").all() as {
      runId: number;
      records: number;
    }[];
    expect(rows.map((r) => r.runId)).toEqual(ingested);
    for (const row of rows)
      expect(row.records).toBe(
        events.prepare("SELECT count(*) FROM event_records WHERE run_id = ?").pluck().get(row.runId),
      );
    expect(() => loadRunRecords(summary, ingested[0])).toThrow(SummaryOnlyRunError);
  });

  test("events, dist, export and train refuse it, naming the re-ingest with --store events", async () => {
    const db = file("summary.db");
    const program = storedPrograms(summary)[0].name;
    const config = summary
      .prepare(
        "SELECT r.config FROM runs r JOIN programs p ON p.id = r.program_id WHERE p.name = ? AND r.ingest_status = 'ok' ORDER BY r.id",
      )
      .pluck()
      .get(program) as string;
    for (const args of [
      ["events", "--db", db, "--program", program, "--run", "0", "--config", config],
      ["dist", "--db", db, "--abstraction", "depth", "--json"],
      ["export", "--db", db, "--objective", "kl", "--out", file("export.jsonl")],
      ["train", "--db", db, "--objective", "kl", "--abstraction", "split", "--out", file("adapter")],
    ]) {
      const result = await runCli(args);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr, args[0]).toMatch(/ingested with --store summary/);
      expect(result.stderr, args[0]).toContain(`schedlab ingest --store events --db ${db}`);
    }
  });

  test("ingest --store events stores the events of summary runs, after which events and leaks read them", async () => {
    const upgraded = file("upgraded.db");
    copyFileSync(file("summary.db"), upgraded);
    const summaryRuns = summary
      .prepare("SELECT count(*) FROM runs WHERE store = 'summary' AND ingest_status IN ('ok', 'truncated')")
      .pluck()
      .get() as number;
    expect(pendingIngestCount(summary)).toBe(summaryRuns);
    expect(pendingIngestCount(summary, "summary")).toBe(0);
    const result = await runCli(["ingest", "--store", "events", "--db", upgraded, "--json"]);
    expect(result.code).toBe(0);
    const db = openDatabase(upgraded);
    try {
      const count = (d: SchedlabDatabase) => d.prepare("SELECT count(*) FROM event_records").pluck().get() as number;
      expect(count(db)).toBe(count(events));
      expect(db.prepare("SELECT count(*) FROM run_end_states").pluck().get()).toBe(0);
      expect(db.prepare("SELECT DISTINCT store FROM runs").pluck().all()).toEqual(["events"]);
      expect(pendingIngestCount(db)).toBe(0);
      expect(JSON.parse(JSON.stringify(await analyseLeaks(db, { save: false })).replaceAll(upgraded, "DB"))).toEqual(
        fromEvents,
      );
      const again = await runCli(["ingest", "--store", "summary", "--db", upgraded]);
      expect(again.stdout).toMatch(/Nothing to ingest/);
    } finally {
      db.close();
    }
  });

  test("a finding's run replays from the summary database, and a merge keeps the summaries", async () => {
    const bug = fromSummary.bugs.find(
      (b) => b.program === "abba/mirrorsync" && (b.kind === "deadlock" || b.kind === "leak"),
    );
    const runId = Number(/--replay (\d+)/.exec(bug?.replay ?? "")?.[1]);
    expect(runId).toBeGreaterThan(0);
    const replayed = await replayRun({ runId, db: file("summary.db"), attempts: 1, traces: file("traces") });
    expect(replayed.original.runId).toBe(runId);
    expect(replayed.original.check.finding).toBe("blocked");
    const merged = file("merged.db");
    mergeDatabases(merged, [file("summary.db")]);
    const db = openDatabase(merged);
    try {
      expect(db.prepare("SELECT count(*) FROM run_end_states").pluck().get()).toBe(
        summary.prepare("SELECT count(*) FROM run_end_states").pluck().get(),
      );
      const mergedAnalysis = JSON.parse(
        JSON.stringify(await analyseLeaks(db, { save: false })).replaceAll(merged, "DB"),
      ) as LeakAnalysis;
      expect(mergedAnalysis.findings).toEqual(fromSummary.findings);
      expect(mergedAnalysis.bugs.map((b) => b.fingerprint)).toEqual(fromSummary.bugs.map((b) => b.fingerprint));
    } finally {
      db.close();
    }
  });
});
