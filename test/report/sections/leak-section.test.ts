// The report's leak section from an analysis: findings under their test, data races of
// -race runs, and goroutines blocked at a crash in tables of their own.

import { NO_RUN_ENDS } from "../../../src/leaks/index.js";
import { describe, expect, test } from "vitest";
import type { BugReport, LeakAnalysis, LeakFinding } from "../../../src/leaks/index.js";
import type { PotentialDeadlock } from "../../../src/model/index.js";
import { MISSING } from "../../../src/core/index.js";
import { crashRows, leakRows, leakSection, raceRows } from "../../../src/report/sections/pipeline.js";

const FINDING: LeakFinding = {
  program: "pool",
  goroutine: "TestPool/pool.TestPool.func2@pool_test.go:11#0/pool.(*Pool).Go.func1@pool.go:12#0",
  test: "TestPool/go_without_wait",
  entry: "pool.(*Pool).Go.func1",
  isRoot: false,
  reason: "chan receive",
  kind: "leak",
  verdict: "proven",
  gating: true,
  why: "TestPool/go_without_wait, which woke it there before, had ended",
  evidence: { runtime: "leaked", trace: "wakers-gone", source: null },
  owner: { kind: "test", root: "TestPool" },
  wakers: ["TestPool/pool.TestPool.func2@pool_test.go:11#0"],
  wakesAtSite: 0,
  formal: false,
  creationSite: "pool.(*Pool).Go pool.go:12",
  creationSiteKey: "pool.go:12",
  blockingSite: "pool.(*Pool).Go.func1 pool.go:13",
  runsSeen: 3,
  runsBlocked: 3,
  blockedFraction: 1,
  runsWoken: 0,
  pUnblockUpper: 0.632,
  early: {
    firstDepthAllBlockedRuns: 10,
    firstDepthFraction: 0.5,
    firstDepthAllRuns: 10,
    runsFalseAlarm: 0,
    curve: [{ depth: 10, runsHolding: 3 }],
  },
  wait: "chan receive",
  explanation: null,
  bug: "0123456789abcdef",
};

const BUG: BugReport = {
  fingerprint: "0123456789abcdef",
  program: "pool",
  owner: "TestPool",
  kind: "leak",
  verdict: "likely",
  gating: true,
  goroutines: [FINDING.goroutine],
  runIds: [1, 2, 3],
  explained: null,
  why: FINDING.why,
  evidence: FINDING.evidence,
  differing: [],
  test: "TestPool/go_without_wait",
  replay: "schedlab collect --replay 1 --db schedlab.db",
  trace: "/tmp/traces/pool-1.trace",
};

const POTENTIAL: PotentialDeadlock = {
  fingerprint: "fedcba9876543210",
  program: "order",
  owner: "TestOrder",
  pattern: "lock-order",
  steps: [
    {
      goroutine: "TestOrder/order.TestOrder.func1@order_test.go:10#0",
      heldAt: "order.TestOrder.func1 order_test.go:11",
      heldStack: null,
      takenAt: "order.TestOrder.func1 order_test.go:12",
      takenStack: ";order.TestOrder.func1 order_test.go:12",
      modes: "ww",
    },
    {
      goroutine: "TestOrder/order.TestOrder.func2@order_test.go:20#0",
      heldAt: "order.TestOrder.func2 order_test.go:21",
      heldStack: null,
      takenAt: "order.TestOrder.func2 order_test.go:22",
      takenStack: ";order.TestOrder.func2 order_test.go:22",
      modes: "ww",
    },
  ],
  writerAt: null,
  runIds: [4],
  why: "the locks are taken in opposite orders",
};

const ANALYSIS: LeakAnalysis = {
  programs: [
    {
      program: "pool",
      runs: 3,
      crashedRuns: 0,
      recordedLocks: false,
      findings: [FINDING],
      bugs: [],
      potential: [],
      blockedAtCrash: [],
      raceRunsChecked: 0,
      races: [],
      failing: [],
      flaky: [],
      crashed: [],
      tracerInduced: [],
      runEnds: NO_RUN_ENDS,
    },
    {
      program: "wgpanic",
      runs: 3,
      crashedRuns: 3,
      recordedLocks: false,
      findings: [],
      bugs: [],
      potential: [],
      blockedAtCrash: [
        {
          program: "wgpanic",
          goroutine: "main.main",
          test: null,
          entry: "main.main",
          isRoot: true,
          reason: "sync",
          creationSite: null,
          blockingSite: "main.main main.go:20",
          runsCrashed: 3,
        },
      ],
      raceRunsChecked: 3,
      races: [
        {
          program: "racy",
          frames: ["main.record main.go:14", "main.record main.go:14"],
          accesses: ["read", "write"],
          createdAt: ["main.main main.go:20", "main.main main.go:21"],
          runs: 3,
          runsChecked: 3,
        },
      ],
      failing: [],
      flaky: [],
      crashed: [],
      tracerInduced: [],
      runEnds: NO_RUN_ENDS,
    },
  ],
  findings: [FINDING],
  bugs: [BUG],
  potentialDeadlocks: [POTENTIAL],
  blockedAtCrash: [
    {
      program: "wgpanic",
      goroutine: "main.main",
      test: null,
      entry: "main.main",
      isRoot: true,
      reason: "sync",
      creationSite: null,
      blockingSite: "main.main main.go:20",
      runsCrashed: 3,
    },
  ],
  races: [
    {
      program: "racy",
      frames: ["main.record main.go:14", "main.record main.go:14"],
      accesses: ["read", "write"],
      createdAt: ["main.main main.go:20", "main.main main.go:21"],
      runs: 3,
      runsChecked: 3,
    },
  ],
  raceRunsChecked: 3,
  failing: [],
  flaky: [],
  crashed: [],
  tracerInduced: [],
  withoutRuns: [],
  notes: [],
};

describe("leakSection", () => {
  test("rows name the test of each finding, the races' two accesses, and the goroutines blocked at a crash", () => {
    expect(leakRows(ANALYSIS.findings)).toEqual([
      [
        "pool",
        "TestPool/go_without_wait",
        "pool.(*Pool).Go.func1",
        "1",
        "leak",
        "proven",
        "chan receive",
        "pool.go:12",
        "pool.go:13",
        "3 / 3",
        "0.632",
        "TestPool/go_without_wait, which woke it there before, had ended",
      ],
    ]);
    expect(raceRows(ANALYSIS.races)).toEqual([
      [
        "racy",
        "read main.record main.go:14",
        "write main.record main.go:14",
        "main.main main.go:20, main.main main.go:21",
        "3 / 3",
      ],
    ]);
    expect(crashRows(ANALYSIS.blockedAtCrash)).toEqual([
      ["wgpanic", MISSING, "main.main", "sync", "main.main main.go:20", "3"],
    ]);
  });

  test("HTML and Markdown carry the three tables; the JSON counts them", () => {
    const section = leakSection(ANALYSIS, null);
    const html = section.html();
    expect(html).toContain("<th>test</th>");
    expect(html).toContain("TestPool/go_without_wait");
    expect(html).toContain("Data races: 1 race reported by 3 -race runs searched");
    expect(html).toContain("write main.record main.go:14");
    expect(html).toContain("Blocked when a run crashed");
    const markdown = section.markdown();
    expect(markdown).toMatch(/\| racy \| read main\.record main\.go:14 \| write main\.record main\.go:14 \|/);
    expect(markdown).toMatch(/\| wgpanic \| .+ \| main\.main \| sync \| main\.main main\.go:20 \| 3 \|/);
    expect(html).toContain("LIKELY leak — pool TestPool/go_without_wait [0123456789abcdef]");
    expect(html).toContain("schedlab collect --replay 1 --db schedlab.db");
    expect(html).toContain("go tool trace /tmp/traces/pool-1.trace");
    expect(html).toContain("POTENTIAL lock-order — order TestOrder [fedcba9876543210]");
    expect(markdown).toContain("**LIKELY leak — pool TestPool/go_without_wait [0123456789abcdef]**");
    expect(section.json()).toEqual({
      score: null,
      bugs: 1,
      potentialDeadlocks: 1,
      findings: 1,
      blockedForever: 1,
      rows: 1,
      races: 1,
      blockedAtCrash: 1,
    });
  });

  test("without races searched or crashes, only the leak table is shown", () => {
    const quiet: LeakAnalysis = { ...ANALYSIS, blockedAtCrash: [], races: [], raceRunsChecked: 0 };
    expect(leakSection(quiet, null).markdown()).not.toMatch(/Data races|crashed/);
  });
});
