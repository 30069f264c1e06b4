// Runs stored as excerpts (ingest --max-stored-records) on real collections: a few programs of
// ours whose runs give 250 to 6 000 records are collected once, and the same database is
// ingested twice, whole and with a cap of 200 records. Leaks must say exactly the same from
// both (their end states are folded from every record); the split samples of every run must
// be the whole run's (same key, same next event), and every depth sample a key the whole run
// gives the same next event; a collect given the ingest stores its runs so as they are recorded;
// the CLI says which runs were cut and refuses the cap without an ingest; a merge keeps the windows.

import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { collect } from "../../src/collect/index.js";
import { ingestedPrograms, refreshDataset, type Abstraction } from "../../src/dataset/index.js";
import { analyseLeaks, bugTimeline, type LeakAnalysis } from "../../src/leaks/index.js";
import { mergeDatabases, openDatabase, type SchedlabDatabase } from "../../src/store/index.js";
import { ingestRuns, loadRunExcerpt } from "../../src/trace/index.js";
import { runCli } from "../helpers/cli.js";

const CORPUS = fileURLToPath(new URL("../../go-programs/", import.meta.url));
const PROGRAMS = [
  "realcode/successors",
  "generated/sharedstate-1035",
  "kernels/chanctx/streamreader",
  "kernels/lockorder/rankedtransfer",
  "kernels/selectnone/nilcases",
];
const CAP = 200;

let dir: string;
const file = (name: string) => join(dir, name);
let whole: SchedlabDatabase;
let cut: SchedlabDatabase;

/** The analysis of `db` with the database's own path (in replay commands) made neutral. */
async function analysis(db: SchedlabDatabase): Promise<LeakAnalysis> {
  return JSON.parse(JSON.stringify(await analyseLeaks(db, { save: false })).replaceAll(db.name, "DB")) as LeakAnalysis;
}

/** Each run's samples of `abstraction` as "runId key" → next event, from the stored dataset. */
function samplesByKey(db: SchedlabDatabase, abstraction: Abstraction): Map<string, string> {
  refreshDataset(db, { abstraction });
  const rows = db
    .prepare(
      "SELECT sm.run_id, st.key, sm.next FROM samples sm JOIN states st ON st.state_id = sm.state_id AND st.abstraction = sm.abstraction " +
        "WHERE sm.abstraction = ?",
    )
    .raw()
    .all(abstraction) as [number, string, string][];
  return new Map(rows.map(([runId, key, next]) => [`${runId} ${key}`, next]));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-store-excerpt-"));
  const collected = file("collected.db");
  await collect({ paths: [CORPUS], programs: PROGRAMS, runs: 3, jobs: 2, db: collected, traces: file("traces") });
  const db = openDatabase(collected);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  copyFileSync(collected, file("whole.db"));
  copyFileSync(collected, file("cut.db"));
  whole = openDatabase(file("whole.db"));
  cut = openDatabase(file("cut.db"));
  await ingestRuns(whole);
  const summary = await ingestRuns(cut, { maxStoredRecords: CAP });
  expect(summary.excerpts).toBeGreaterThan(6);
}, 600_000);

afterAll(() => {
  whole?.close();
  cut?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("--max-stored-records", () => {
  test("stores the runs over the cap as excerpts of about the cap, with the whole run's totals", () => {
    const runs = whole.prepare("SELECT id FROM runs WHERE ingest_status = 'ok' ORDER BY id").pluck().all() as number[];
    let excerpts = 0;
    for (const runId of runs) {
      const count = (db: SchedlabDatabase, kinds = "") =>
        db.prepare(`SELECT count(*) FROM event_records WHERE run_id = ? ${kinds}`).pluck().get(runId) as number;
      const excerpt = loadRunExcerpt(cut, runId);
      if (count(whole) <= CAP) {
        expect(excerpt).toBeNull();
        expect(count(cut)).toBe(count(whole));
        continue;
      }
      excerpts++;
      expect(excerpt!.records).toBe(count(whole));
      expect(excerpt!.events).toBe(count(whole, "AND kind < 6"));
      expect(excerpt!.windows[0]).toEqual({ firstSeq: 0, sourceSeq: 0, eventsBefore: 0 });
      expect(count(cut, "AND kind != 9")).toBeLessThanOrEqual(CAP + 8);
      expect(loadRunExcerpt(whole, runId)).toBeNull();
    }
    expect(excerpts).toBeGreaterThan(6);
  });

  test("leaks gives the same findings and bugs as from the whole runs", async () => {
    const fromWhole = await analysis(whole);
    const fromCut = await analysis(cut);
    expect(fromWhole.findings.length).toBeGreaterThan(0);
    expect(fromCut).toEqual(fromWhole);
    // A bug explained from a run stored as an excerpt says so under its timeline.
    const cutRuns = fromCut.bugs.filter((b) => loadRunExcerpt(cut, b.explained?.explanation.runId ?? 0) !== null);
    expect(cutRuns.length).toBeGreaterThan(0);
    for (const bug of cutRuns)
      expect(bugTimeline(cut, bug, fromCut).note).toMatch(
        /is stored as an excerpt \(\d+ windows along its \d+ records\)/,
      );
  });

  test("every split sample is the whole run's, and every depth sample has the whole run's key and next event", () => {
    for (const abstraction of ["split", "depth"] as const) {
      const full = samplesByKey(whole, abstraction);
      const part = samplesByKey(cut, abstraction);
      for (const [key, next] of part) expect(full.get(key), `${abstraction} ${key}`).toBe(next);
      expect(part.size, abstraction).toBeGreaterThan(0);
      if (abstraction === "split") expect(part.size).toBe(full.size);
      else expect(part.size).toBeLessThan(full.size);
    }
    expect(
      ingestedPrograms(cut)
        .map((p) => p.name)
        .sort(),
    ).toEqual([...PROGRAMS].sort());
  });

  test("a collect given the ingest ingests each run as it is recorded, with the cap", async () => {
    const db = file("as-recorded.db");
    const result = await collect({
      paths: [CORPUS],
      programs: PROGRAMS.slice(0, 2),
      runs: 2,
      jobs: 2,
      db,
      traces: file("traces-as-recorded"),
      ingest: { maxStoredRecords: CAP },
    });
    expect(result.ingested).toHaveLength(4);
    expect(result.ingested.every((r) => r.status === "ok")).toBe(true);
    expect(result.ingested.filter((r) => r.excerpt).length).toBeGreaterThan(0);
    const opened = openDatabase(db);
    try {
      expect(opened.prepare("SELECT count(*) FROM runs WHERE ingest_status IS NULL").pluck().get()).toBe(0);
      expect(opened.prepare("SELECT count(DISTINCT run_id) FROM run_excerpts").pluck().get()).toBe(
        result.ingested.filter((r) => r.excerpt).length,
      );
    } finally {
      opened.close();
    }
  });

  test("ingest says which runs it cut; collect refuses the cap without its ingest; a merge keeps the windows", async () => {
    const again = file("again.db");
    copyFileSync(file("collected.db"), again);
    const ingest = await runCli(["ingest", "--db", again, "--max-stored-records", String(CAP)]);
    expect(ingest.code).toBe(0);
    expect(ingest.stdout).toMatch(
      /\d+ run\(s\) gave more records than --max-stored-records and are stored as excerpts/,
    );
    const refused = await runCli([
      "collect",
      CORPUS,
      "--program",
      PROGRAMS[0],
      "--db",
      again,
      "--no-ingest",
      "--max-stored-records",
      "5",
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--max-stored-records says what the ingest keeps/);
    const merged = file("merged.db");
    mergeDatabases(merged, [file("cut.db")]);
    const db = openDatabase(merged);
    try {
      const windows = (d: SchedlabDatabase) => d.prepare("SELECT count(*) FROM run_excerpts").pluck().get() as number;
      expect(windows(db)).toBe(windows(cut));
      expect(windows(db)).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });
});
