// The report of a collection without an evaluation: the overview (what was collected, per
// program what its runs show, and that prediction needs `schedlab run` / `eval`) and the
// flaky tests' section, from a collection summary and a leak analysis.

import { describe, expect, test } from "vitest";
import type { FlakyFinding, LeakAnalysis, TracerInducedFailure } from "../../../src/leaks/index.js";
import type { CollectionSummary } from "../../../src/report/collection.js";
import { MISSING } from "../../../src/core/index.js";
import {
  collectionLines,
  collectionOverviewSection,
  collectionProgramsSection,
  collectionRows,
} from "../../../src/report/sections/collection.js";
import { flakyRows, flakySection, tracerInducedRows } from "../../../src/report/sections/leakTables.js";
import { programAnalysis } from "./leak-analysis.js";

const FLAKY: FlakyFinding = {
  program: "shop",
  test: "TestReserve",
  kind: "fail",
  message: "shop_test.go:14: reserved 4 of 3\nmore detail",
  summary: "shop_test.go:14: reserved 4 of 3",
  runsFailed: 2,
  runsPassed: 7,
  plainRunsFailed: 0,
  strategies: ["perturb procs-1-perturb", "perturb procs-2-perturb"],
  run: { runId: 12, config: "procs-1-perturb", strategy: "perturb", seed: 42 },
  replay: "schedlab collect --replay 12 --db s.db",
};

const TRACER: TracerInducedFailure = {
  program: "pool",
  test: "TestMain",
  kind: "fail",
  message: "found unexpected goroutines\nignore it, e.g. goleak.IgnoreAnyFunction(…)",
  runs: 3,
  untraced: null,
  run: { runId: 5, config: "procs-2", strategy: "plain", seed: null },
  replay: "schedlab collect --replay 5 --db s.db",
};

const ANALYSIS: LeakAnalysis = {
  programs: [
    programAnalysis("shop", 9, { flaky: [FLAKY], raceRunsChecked: 2 }),
    programAnalysis("pool", 3, { tracerInduced: [TRACER] }),
  ],
  findings: [],
  bugs: [],
  potentialDeadlocks: [],
  blockedAtCrash: [],
  races: [],
  raceRunsChecked: 2,
  failing: [],
  flaky: [FLAKY],
  crashed: [],
  tracerInduced: [TRACER],
  withoutRuns: [],
  buildErrors: [{ program: "broken", output: "x.go:1: syntax error" }],
  notes: [],
};

const COLLECTION: CollectionSummary = {
  programs: [
    {
      name: "broken",
      kind: "test",
      runs: 1,
      byStrategy: { plain: 0, race: 0, perturb: 0 },
      outcomes: { "build-error": 1 },
      ingested: 0,
      buildFailed: true,
      hunt: { status: "build-error", budgetMs: 3000, spentMs: 0, runs: 0 },
    },
    {
      name: "pool",
      kind: "main",
      runs: 3,
      byStrategy: { plain: 3, race: 0, perturb: 0 },
      outcomes: { ok: 3 },
      ingested: 3,
      buildFailed: false,
      hunt: null,
    },
    {
      name: "shop",
      kind: "test",
      runs: 9,
      byStrategy: { plain: 3, race: 2, perturb: 4 },
      outcomes: { "exit-error": 2, ok: 7 },
      ingested: 9,
      buildFailed: false,
      hunt: { status: "exhausted", budgetMs: 3000, spentMs: 3100, runs: 9 },
    },
  ],
  goVersions: ["go1.26.8"],
  firstRunAt: "2026-12-01T10:00:00.000Z",
  lastRunAt: "2026-12-01T10:01:00.000Z",
};

describe("collectionOverviewSection", () => {
  test("one row per program: runs by strategy and outcome, its hunt, and what its runs show", () => {
    expect(collectionRows(COLLECTION, ANALYSIS)).toEqual([
      [
        "broken",
        "test",
        "1",
        "0 / 0 / 0",
        "build-error 1",
        "0",
        "build error",
        "build error",
        "build error",
        "build error",
        "build error",
      ],
      ["pool", "main", "3", "3 / 0 / 0", "ok 3", "3", MISSING, "0", "0", "0", "0"],
      ["shop", "test", "9", "3 / 2 / 4", "exit-error 2, ok 7", "9", "exhausted, 3.1 s of 3.0 s", "0", "0", "0", "1"],
    ]);
  });

  test("counts the collection and the findings in sentences", () => {
    const [collected, hunted, found] = collectionLines(COLLECTION, ANALYSIS);
    expect(collected).toBe(
      "3 programs (2 test, 1 main), 13 runs (6 plain, 2 -race, 4 perturbed; outcomes build-error 1, " +
        "exit-error 2, ok 10), 12 ingested; 1 program did not build (broken); Go go1.26.8; " +
        "runs recorded 2026-12-01T10:00:00.000Z to 2026-12-01T10:01:00.000Z.",
    );
    expect(hunted).toBe(
      "2 programs hunted with a budget (collect --budget or hunt): 0 stopped at a confirmed finding, 1 spent the budget.",
    );
    expect(found).toContain("0 bugs blocking goroutines forever");
    expect(found).toContain("0 data races in 2 -race runs searched; 1 flaky test.");
  });

  test("says plainly that the prediction sections need schedlab run or eval", () => {
    const section = collectionOverviewSection(COLLECTION, ANALYSIS);
    expect(section.id).toBe("overview");
    expect(section.markdown()).toContain(
      "run `schedlab run`, or `schedlab train` then `schedlab eval`, on this database",
    );
    expect(section.json()).toMatchObject({ evaluation: null, collection: COLLECTION });
    // the table per program ends the page, so the bugs come right after the overview
    expect(section.html()).not.toContain("<table");
    expect(collectionProgramsSection(COLLECTION, ANALYSIS).html()).toContain("<td>exhausted, 3.1 s of 3.0 s</td>");
  });
});

describe("flakySection", () => {
  test("lists each flaky test with its runs, configurations, first failure and replay; tracer-caused failures apart", () => {
    expect(flakyRows(ANALYSIS.flaky)).toEqual([
      [
        "shop",
        "TestReserve",
        "fail",
        "2 / 7",
        "0",
        "perturb procs-1-perturb, perturb procs-2-perturb",
        "shop_test.go:14: reserved 4 of 3",
        "schedlab collect --replay 12 --db s.db",
      ],
    ]);
    expect(tracerInducedRows(ANALYSIS.tracerInduced)).toEqual([
      ["pool", "TestMain", "3", "found unexpected goroutines", "ignore it, e.g. goleak.IgnoreAnyFunction(…)"],
    ]);
    const section = flakySection(ANALYSIS);
    expect(section.id).toBe("flaky");
    const markdown = section.markdown();
    expect(markdown).toContain("1 test failed on some schedules and passed on others");
    expect(markdown).toContain("| shop | TestReserve | fail | 2 / 7 | 0 |");
    expect(markdown).toContain("Failures the execution tracer caused");
    expect(section.json()).toEqual({ flaky: [FLAKY], tracerInduced: [TRACER] });
  });

  test("without flaky tests it says so, counting the runs read; without an analysis it says the stage did not run", () => {
    const quiet: LeakAnalysis = { ...ANALYSIS, flaky: [], tracerInduced: [] };
    expect(flakySection(quiet).markdown()).toBe(
      "No test failed on some schedules and passed on others in the 12 runs read.",
    );
    expect(flakySection(null).html()).toContain("did not run");
  });
});
