// The text of collect's progress for logs: the status line a log gets every few seconds
// (counts, findings by class, elapsed, ETA once it can be estimated) and its final line, the
// findings tally, and the line per explored program for every finding class.

import { describe, expect, it } from "vitest";
import { explorationLine, logProgressLine, tallyFindings } from "../../src/collect/progress.js";
import type {
  CollectProgress,
  ExplorationFinding,
  ExplorationSummary,
  FindingClass,
  RunCheck,
} from "../../src/collect/types.js";

const plain: CollectProgress = {
  programsDone: 3,
  programsTotal: 10,
  runsDone: 14,
  runsTotal: 50,
  failures: 2,
  elapsedMs: 30_000,
  etaMs: 42_000,
};

function finding(cls: FindingClass, check: Partial<RunCheck> = {}): ExplorationFinding {
  return {
    class: cls,
    runId: 12,
    config: "procs-1-race",
    strategy: "race",
    seed: null,
    atMs: 1_400,
    atRun: 3,
    replay: "schedlab collect --replay 12 --db s.db",
    check: { finding: null, classes: [cls], blocked: [], races: 0, failures: [], ...check },
  };
}

function explored(
  program: string,
  findings: ExplorationFinding[],
  stopper: ExplorationFinding | null,
): ExplorationSummary {
  return {
    program,
    budgetMs: 10_000,
    spentMs: 11_000,
    buildMs: 0,
    runs: 20,
    cutRuns: 0,
    budgetStops: 0,
    hungRuns: 0,
    plainRunMs: null,
    status: stopper === null ? "exhausted" : "confirmed",
    finding: stopper,
    findings,
    stopOn: ["leak"],
    unavailable: [],
  };
}

describe("logProgressLine", () => {
  it("gives counts, failures, elapsed and the ETA counted down since the snapshot", () => {
    expect(logProgressLine(plain, { elapsedMs: 70_000, sinceSnapshotMs: 2_000 })).toBe(
      "collect: programs 3/10, runs 14/50, 2 not ok; elapsed 1:10, ETA 0:40",
    );
    expect(logProgressLine({ ...plain, failures: 0, etaMs: 1_000 }, { elapsedMs: 5_000, sinceSnapshotMs: 3_000 })).toBe(
      "collect: programs 3/10, runs 14/50; elapsed 0:05, ETA 0:00",
    );
  });

  it("leaves the ETA out before it can be estimated, and says what happens before the first snapshot", () => {
    expect(
      logProgressLine({ ...plain, runsDone: 0, failures: 0, etaMs: null }, { elapsedMs: 12_000, sinceSnapshotMs: 0 }),
    ).toBe("collect: programs 3/10, runs 0/50; elapsed 0:12");
    expect(logProgressLine(null, { elapsedMs: 3_700_000, sinceSnapshotMs: 0 })).toBe(
      "collect: discovering and building; elapsed 1:01:40",
    );
  });

  it("ends with a final line without an ETA", () => {
    expect(
      logProgressLine(
        { ...plain, programsDone: 10, runsDone: 50, etaMs: 0 },
        { elapsedMs: 250_000, sinceSnapshotMs: 10, final: true },
      ),
    ).toBe("collect: done: programs 10/10, runs 50/50, 2 not ok; elapsed 4:10");
  });

  it("with a budget: findings by class, the budget spent, and the budget left at the pace so far", () => {
    const hunting: CollectProgress = {
      programsDone: 2,
      programsTotal: 4,
      runsDone: 57,
      runsTotal: 57,
      failures: 0,
      elapsedMs: 60_000,
      etaMs: null,
      budget: { totalMs: 120_000, spentMs: 40_000, findings: 2, current: null },
    };
    const tally = tallyFindings([
      explored("a", [finding("leak"), finding("race")], finding("leak")),
      explored("b", [finding("race")], null),
    ]);
    // 40 s of budget took 60 s; 80 s are left: 120 s at that pace, 10 s of it already gone.
    expect(logProgressLine(hunting, { elapsedMs: 75_000, sinceSnapshotMs: 10_000, findings: tally })).toBe(
      "collect: programs 2/4, runs 57; findings leak 1, race 2, failure 0 (+1 in programs still exploring); budget 0:40/2:00; elapsed 1:15, ETA 1:50",
    );
    expect(
      logProgressLine(
        { ...hunting, budget: { ...hunting.budget!, spentMs: 0, findings: 0 } },
        { elapsedMs: 5_000, sinceSnapshotMs: 0, findings: tallyFindings([]) },
      ),
    ).toBe("collect: programs 2/4, runs 57; findings leak 0, race 0, failure 0; budget 0:00/2:00; elapsed 0:05");
  });
});

describe("tallyFindings", () => {
  it("counts each explored program once per class it confirmed, and the programs a finding ended", () => {
    expect(
      tallyFindings([
        explored("a", [finding("leak"), finding("leak"), finding("failure")], finding("leak")),
        explored("b", [], null),
        explored("c", [finding("failure")], null),
      ]),
    ).toEqual({ byClass: { leak: 1, race: 0, failure: 2 }, ended: 1 });
  });
});

describe("explorationLine for every finding class", () => {
  it("describes a race and a failure that ended the hunt", () => {
    const race = finding("race", { races: 2, finding: "race" });
    expect(explorationLine({ ...explored("racy", [race], race), stopOn: ["race"], runs: 3 })).toBe(
      "racy: finding after 1.4s, 3 runs (procs-1-race): 2 data race report(s) — replay: schedlab collect --replay 12 --db s.db",
    );
    const failed = finding("failure", {
      failures: [
        { test: "TestFlush", kind: "fail", message: "flush_test.go:10: too slow", tracerInduced: false },
        { test: null, kind: "panic", message: "panic: boom", tracerInduced: false },
        { test: "TestLeakCheck", kind: "fail", message: "found unexpected goroutines", tracerInduced: true },
      ],
    });
    expect(explorationLine({ ...explored("raceonly", [failed], failed), stopOn: ["failure"] })).toBe(
      "raceonly: failure after 1.4s, 3 runs (procs-1-race); 11s, 20 runs in all: TestFlush failed, (main) " +
        "panicked — replay: schedlab collect --replay 12 --db s.db",
    );
  });

  it("says which classes did not show when only others were confirmed", () => {
    expect(explorationLine({ ...explored("racy", [finding("race")], null), stopOn: ["leak", "failure"] })).toBe(
      "racy: no leak or failure finding in 11s, 20 runs, of a 10s budget",
    );
  });
});
