// A small leak analysis, made here, that the leak tables' and the bug section's tests read:
// one proven finding of a test package in a likely bug, a potential lock-order deadlock, a
// data race and a goroutine blocked at a crash.

import { NO_RUN_ENDS } from "../../../src/leaks/index.js";
import type { BlockedAtCrash, BugReport, LeakAnalysis, LeakFinding, RaceFinding } from "../../../src/leaks/index.js";
import type { PotentialDeadlock } from "../../../src/model/index.js";

export const FINDING: LeakFinding = {
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

export const BUG: BugReport = {
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

export const POTENTIAL: PotentialDeadlock = {
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

const CRASHED: BlockedAtCrash = {
  program: "wgpanic",
  goroutine: "main.main",
  test: null,
  entry: "main.main",
  isRoot: true,
  reason: "sync",
  creationSite: null,
  blockingSite: "main.main main.go:20",
  runsCrashed: 3,
};

const RACE: RaceFinding = {
  program: "racy",
  frames: ["main.record main.go:14", "main.record main.go:14"],
  accesses: ["read", "write"],
  createdAt: ["main.main main.go:20", "main.main main.go:21"],
  runs: 3,
  runsChecked: 3,
};

/** One program's part of an analysis: nothing found unless `extra` says so. */
export function programAnalysis(
  name: string,
  runs: number,
  extra: Partial<LeakAnalysis["programs"][number]> = {},
): LeakAnalysis["programs"][number] {
  return {
    program: name,
    runs,
    crashedRuns: 0,
    recordedLocks: false,
    findings: [],
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
    ...extra,
  };
}

export const ANALYSIS: LeakAnalysis = {
  programs: [
    programAnalysis("pool", 3, { findings: [FINDING] }),
    programAnalysis("wgpanic", 3, { crashedRuns: 3, blockedAtCrash: [CRASHED], raceRunsChecked: 3, races: [RACE] }),
  ],
  findings: [FINDING],
  bugs: [BUG],
  potentialDeadlocks: [POTENTIAL],
  blockedAtCrash: [CRASHED],
  races: [RACE],
  raceRunsChecked: 3,
  failing: [],
  flaky: [],
  crashed: [],
  tracerInduced: [],
  withoutRuns: [],
  notes: [],
};
