// Findings an engineer can act on, on our own kernels of each blocking-bug class
// (go-programs/kernels; docs/leaks.md, "Why it is stuck"): a budgeted hunt as a user runs
// it, then `leaks`. An AB-BA that hangs is one proven bug whose goroutines wait for each
// other in a cycle, each lock's holder named with where it took it; a three-goroutine
// channel ring is a cycle found from the source; a WaitGroup whose only worker exited and a
// send whose receiver returned early say their partner is gone; an inversion sequenced so
// it never hangs and a recursive read lock with a late writer are potential deadlocks; the
// guarded, ordered and non-recursive controls have none; a bug repeated by -test.count is
// one bug.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { collect } from "../../src/collect/index.js";
import {
  analyseLeaks,
  analysisJson,
  formatFindings,
  scoreLeaks,
  type BugReport,
  type LeakAnalysis,
  type LeakScoreReport,
} from "../../src/leaks/index.js";
import { openDatabase, type SchedlabDatabase } from "../../src/store/index.js";
import { ingestRuns } from "../../src/trace/index.js";

const KERNELS = fileURLToPath(new URL("../../go-programs/kernels/", import.meta.url));
const PROGRAMS = [
  "abba/mirrorsync",
  "chancycle/compactionring",
  "wgmisuse/taskcount",
  "orphan/validateearly",
  "lockorder/catalogsync",
  "rwrecursive/quotareport",
  "lockorder/gatedmove",
  "lockorder/rankedtransfer",
  "rwrecursive/flagsnapshot",
];
const CLEAN = ["lockorder/gatedmove", "lockorder/rankedtransfer", "rwrecursive/flagsnapshot"];

let dir: string;
let db: SchedlabDatabase;
let analysis: LeakAnalysis;
let score: LeakScoreReport;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-why-"));
  const dbFile = join(dir, "schedlab.db");
  await collect({
    paths: [KERNELS],
    programs: PROGRAMS,
    budgetMs: 4_000,
    jobs: 2,
    db: dbFile,
    traces: join(dir, "traces"),
  });
  db = openDatabase(dbFile);
  await ingestRuns(db);
  analysis = await analyseLeaks(db);
  score = await scoreLeaks(db);
}, 900_000);

afterAll(() => {
  db?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function bugsOf(program: string): BugReport[] {
  return analysis.bugs.filter((b) => b.program === program);
}

function only(program: string): BugReport {
  const bugs = bugsOf(program).filter((b) => b.kind === "leak" || b.kind === "deadlock");
  expect(bugs.map((b) => `${b.kind} ${b.verdict}`)).toHaveLength(1);
  return bugs[0]!;
}

describe("why it is stuck", () => {
  test("an AB-BA that hangs is one proven deadlock: a cycle of the two lockers, each holding the lock the other wants", () => {
    const bug = only("abba/mirrorsync");
    expect(bug).toMatchObject({ kind: "deadlock", verdict: "proven", test: "TestPushAndPull" });
    const e = bug.explained!.explanation;
    expect(e.wait).toBe("Mutex.Lock");
    // Both lockers run copyAll, and block at its second Lock (line 27), each on the mutex the other took at line 23.
    expect(e.cycle?.map((s) => `${s.wait} ${s.site?.split(" ").pop()}`)).toEqual([
      "Mutex.Lock mirror_test.go:27",
      "Mutex.Lock mirror_test.go:27",
    ]);
    expect(e.waitsFor).toHaveLength(1);
    expect(e.waitsFor[0]).toMatchObject({ basis: "holds-lock", state: "blocked" });
    expect(e.waitsFor[0]!.tookLockAt).toMatch(/mirror_test\.go:23$/);
    expect(e.text).toMatch(
      /waits at mirror_test\.go:27 \(Mutex\.Lock, called at mirror_test\.go:4[26]\) for .*, which waits at mirror_test\.go:27 \(Mutex\.Lock, called at mirror_test\.go:4[26]\) for .*: a cycle of blocked goroutines.* took that lock at mirror_test\.go:23/,
    );
    expect(e.stack.map((f) => f.split(" ").pop())).toEqual([
      "mirror_test.go:27",
      expect.stringMatching(/^mirror_test\.go:4[26]$/),
    ]);
    expect(bug.replay).toMatch(/^schedlab collect --replay \d+ --db /);
    expect(bug.trace).toMatch(/\.trace|trace/);
  });

  test("a three-goroutine channel ring is a cycle read from the source: each shard waits for the one that sends to it next", () => {
    const bug = only("chancycle/compactionring");
    expect(bug.verdict).toBe("proven");
    const cycle = bug.explained!.explanation.cycle!;
    expect(cycle).toHaveLength(3);
    expect(cycle.every((s) => s.wait === "chan receive")).toBe(true);
    expect(bug.explained!.explanation.waitsFor.map((w) => w.basis)).toEqual(["source"]);
    expect(bug.goroutines.length).toBeGreaterThanOrEqual(3);
  });

  test("a WaitGroup whose only worker exited, and a send whose receiver returned early: nothing is left to wake them", () => {
    const wg = only("wgmisuse/taskcount").explained!.explanation;
    expect(wg.wait).toBe("WaitGroup.Wait");
    expect(wg.partnerGone).toBe(true);
    expect(wg.text).toContain("nothing is left to wake it");
    const send = only("orphan/validateearly");
    // Its partner gone is the trace's evidence; the runtime's leak profile, when it marks the sender, is the proof.
    expect(send).toMatchObject({ kind: "leak", verdict: send.evidence.runtime === "leaked" ? "proven" : "likely" });
    expect(send.explained!.explanation).toMatchObject({ wait: "chan send", partnerGone: true });
  });
});

describe("lock-order prediction", () => {
  test("an inversion that never hung and a recursive read lock with a late writer are potential deadlocks, matching their labels", () => {
    const order = analysis.potentialDeadlocks.filter((p) => p.program === "lockorder/catalogsync");
    expect(order.map((p) => p.pattern)).toEqual(["lock-order"]);
    expect(order[0]!.steps.map((s) => s.takenAt?.split(" ").pop())).toContain("catalog_test.go:39");
    const read = analysis.potentialDeadlocks.filter((p) => p.program === "rwrecursive/quotareport");
    expect(read.map((p) => p.pattern)).toEqual(["recursive-read"]);
    expect(read[0]!.steps[0]!.takenAt).toMatch(/quotas_test\.go:25$/);
    const own = score.detectors.find((d) => d.detector === "schedlab")!;
    for (const program of ["lockorder/catalogsync", "rwrecursive/quotareport"]) {
      expect(own.score.programs.find((p) => p.program === program)).toMatchObject({ missed: [], falsePositives: [] });
    }
  });

  test("two locks taken in both orders under a common guard, one order everywhere, and single read locks: no finding at all", () => {
    for (const program of CLEAN) {
      expect(analysis.potentialDeadlocks.filter((p) => p.program === program)).toEqual([]);
      expect(bugsOf(program).filter((b) => b.gating)).toEqual([]);
    }
  });

  test("the text and JSON put the verdict first and count bugs, not goroutines", () => {
    const text = formatFindings(analysis);
    expect(text).toMatch(/^Blocked forever \(counted by --fail-on-leak\): \d+ bugs/);
    expect(text).toContain("PROVEN deadlock  abba/mirrorsync  TestPushAndPull");
    expect(text).toContain("Potential deadlocks");
    const json = analysisJson(analysis) as {
      version: number;
      counts: { leak: number; potential: number };
      bugs: unknown[];
    };
    expect(json.version).toBe(4);
    expect(json.counts.leak).toBe(analysis.bugs.filter((b) => b.gating).length);
    expect(json.counts.potential).toBe(2);
  });
});

describe("bugs, not rows", () => {
  test("the -test.count variant of a bug is one bug with one fingerprint", async () => {
    const countDir = mkdtempSync(join(tmpdir(), "schedlab-why-count-"));
    try {
      const file = join(countDir, "count.db");
      await collect({
        paths: [KERNELS],
        programs: ["wgmisuse/taskcount"],
        runs: 2,
        testCount: 3,
        jobs: 2,
        db: file,
        traces: join(countDir, "traces"),
      });
      const counted = openDatabase(file);
      try {
        await ingestRuns(counted);
        const repeated = await analyseLeaks(counted, { save: false });
        const bugs = repeated.bugs.filter((b) => b.gating);
        expect(bugs).toHaveLength(1);
        expect(bugs[0]!.goroutines.length).toBeGreaterThanOrEqual(3);
        expect(bugs[0]!.fingerprint).toBe(only("wgmisuse/taskcount").fingerprint);
      } finally {
        counted.close();
      }
    } finally {
      rmSync(countDir, { recursive: true, force: true });
    }
  }, 300_000);
});
