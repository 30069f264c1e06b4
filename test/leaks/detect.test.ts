// The detector's core on hand-built runs: each case is a sequence of records whose
// meaning is spelled out, so the one rule (real block reasons, no later GoUnblock, alive
// waits, live wakers, runs cut by the deadline, leak vs deadlock, owners, schedule
// dependence) is pinned down.

import { describe, expect, test } from "vitest";
import {
  creationSiteKey,
  detectBlockedAtCrash,
  detectLeaks,
  runGoroutineStates,
  type AnalysedRun,
  type LeakRun,
  type RunEnd,
} from "../../src/leaks/index.js";
import type { GoroutineInfo, GoroutineRecord, RecordKind } from "../../src/core/index.js";

const MS = 1_000_000;
type Step = [kind: RecordKind, gid: number, timeMs: number, reason?: string, site?: string, actor?: number];

const ROOT: GoroutineInfo = {
  goroutine: 1,
  canonicalId: "main.main",
  parent: null,
  entry: "main.main",
  creationSite: null,
  isRoot: true,
};
const WORKER: GoroutineInfo = {
  goroutine: 7,
  canonicalId: "main.main/main.worker@main.go:10#0",
  parent: 1,
  entry: "main.worker",
  creationSite: "main.main /src/main.go:10",
  isRoot: false,
};

/** Steps become records; an unblock's actor is goroutine 1 unless given (-1: none, as when a timer fires). */
function records(steps: readonly Step[]): GoroutineRecord[] {
  return steps.map(([kind, goroutine, timeMs, reason = "", site = null, actor], seq) => ({
    seq,
    timeNs: timeMs * MS,
    kind,
    goroutine,
    actor: kind === "GoUnblock" ? (actor === -1 ? null : (actor ?? 1)) : null,
    reason,
    site,
  }));
}

function header(outcome: RunEnd, runIndex: number, crashed: boolean): LeakRun {
  return {
    runId: runIndex + 1,
    runIndex,
    config: "procs-2",
    outcome,
    runtimeDeadlock: false,
    crashed,
    goroutines: [ROOT, WORKER],
  };
}

/** The end states of one run of `steps`, as the detector reads it. */
function states(steps: readonly Step[], outcome: RunEnd) {
  return runGoroutineStates(header(outcome, 0, false), records(steps));
}

function run(
  steps: readonly Step[],
  outcome: RunEnd = "ok",
  runIndex = 0,
  crashed = false,
  goroutines?: readonly GoroutineInfo[],
): AnalysedRun {
  const run = { ...header(outcome, runIndex, crashed), ...(goroutines === undefined ? {} : { goroutines }) };
  return { run, states: runGoroutineStates(run, records(steps)) };
}

const start: Step[] = [
  ["GoStart", 1, 0],
  ["GoCreate", 7, 1, "", "main.main /src/main.go:10"],
  ["GoStart", 7, 2],
];
const selectBlock: Step = ["GoBlock", 7, 3, "select", "main.worker /src/main.go:14"];
const mainEnds: Step = ["GoEnd", 1, 5];

describe("runGoroutineStates and detectLeaks", () => {
  test("a goroutine left in select when main returns is a formal leak in every run", () => {
    const runs = [0, 1, 2].map((i) => run([...start, selectBlock, mainEnds], "ok", i));
    const [finding, ...rest] = detectLeaks({ program: "p", runs });
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      goroutine: WORKER.canonicalId,
      reason: "select",
      formal: true,
      kind: "leak",
      verdict: "likely",
      gating: true,
      owner: { kind: "main" },
      creationSite: "main.main /src/main.go:10",
      creationSiteKey: "main.go:10",
      blockingSite: "main.worker /src/main.go:14",
      runsSeen: 3,
      runsBlocked: 3,
      runsWoken: 0,
      blockedFraction: 1,
    });
    expect(finding.pUnblockUpper).toBeCloseTo(1 - Math.pow(0.05, 1 / 3), 12);
    // The block is the 4th of the six-event sequence (depth 3): the signature holds from depth 4 on.
    expect(finding.early).toMatchObject({
      firstDepthAllBlockedRuns: 4,
      firstDepthAllRuns: 4,
      runsFalseAlarm: 0,
      curve: [{ depth: 4, runsHolding: 3 }],
    });
  });

  test("a block that is later unblocked, a sleep and a GC suspension are not leaks", () => {
    const woken = run([...start, selectBlock, ["GoUnblock", 7, 4], ["GoStart", 7, 4], ["GoEnd", 7, 5], mainEnds]);
    const sleeping = run([...start, ["GoBlock", 7, 3, "sleep", "main.worker /src/main.go:15"], mainEnds]);
    const gc = run([...start, ["GoBlock", 7, 3, "preempted", "main.worker /src/main.go:15"], mainEnds]);
    for (const r of [woken, sleeping, gc]) expect(detectLeaks({ program: "p", runs: [r] })).toEqual([]);
  });

  test("only some runs leaking is reported with its fraction, and the woken runs loosen the bound", () => {
    const leaking = run([...start, selectBlock, mainEnds], "ok", 0);
    const woken = run(
      [...start, selectBlock, ["GoUnblock", 7, 4], ["GoStart", 7, 4], ["GoEnd", 7, 5], mainEnds],
      "ok",
      1,
    );
    const neverBlocks = run([...start, ["GoEnd", 7, 4], mainEnds], "ok", 2);
    const [finding] = detectLeaks({ program: "p", runs: [leaking, woken, neverBlocks] });
    expect(finding).toMatchObject({ runsSeen: 3, runsBlocked: 1, runsWoken: 1, wakesAtSite: 1, wakers: ["main.main"] });
    // main woke it in the other run and had ended in this one: its partner is gone — likely, not proven without the runtime.
    expect(finding).toMatchObject({
      kind: "leak",
      verdict: "likely",
      gating: true,
      evidence: { runtime: null, trace: "wakers-gone", source: null },
    });
    expect(finding.why).toMatch(/not proven: no goroutine leak profile/);
    expect(finding.blockedFraction).toBeCloseTo(1 / 3, 12);
    // 1 unblock in 2 trials: P(X ≤ 1) = 1 − p² = 0.05 at p = √0.95.
    expect(finding.pUnblockUpper).toBeCloseTo(Math.sqrt(0.95), 8);
    expect(finding.early.firstDepthAllRuns).toBeNull();
    expect(finding.early.runsFalseAlarm).toBe(1);
  });

  test("a hang with every user goroutine blocked is a deadlock; with a sleeper still alive the cut run judges only long blocks", () => {
    const hung: Step[] = [...start, selectBlock, ["GoBlock", 1, 4, "sync", "main.main /src/main.go:20"]];
    const findings = detectLeaks({ program: "p", runs: [run(hung, "timeout")] });
    expect(findings.map((f) => [f.goroutine, f.reason, f.kind, f.verdict, f.gating])).toEqual([
      ["main.main", "sync", "deadlock", "proven", true],
      [WORKER.canonicalId, "select", "deadlock", "proven", true],
    ]);
    expect(findings[0]).toMatchObject({ isRoot: true, creationSiteKey: null });
    // main sleeps until the deadline cuts the run: the worker blocked 1 ms before a 4 ms trace ended.
    const rootSleepsSoon: Step[] = [...start, selectBlock, ["GoBlock", 1, 4, "sleep", "main.main /src/main.go:20"]];
    expect(
      detectLeaks({ program: "p", runs: [run(rootSleepsSoon, "timeout")] }).map((f) => [f.kind, f.gating]),
    ).toEqual([["inconclusive", false]]);
    // Blocked for 97 of 100 ms before the cut: likely a leak, but a cut run never gates on its own.
    const rootSleepsLong: Step[] = [
      ...start,
      selectBlock,
      ["GoSched", 1, 50],
      ["GoBlock", 1, 100, "sleep", "main.main /src/main.go:20"],
    ];
    expect(
      detectLeaks({ program: "p", runs: [run(rootSleepsLong, "timeout")] }).map((f) => [f.kind, f.verdict, f.gating]),
    ).toEqual([["leak", "likely", false]]);
  });

  test(
    "a timer-driven loop is alive: outlived when its owner ended, nothing when the deadline cut the run; " +
      "a loop woken by goroutines is judged by its wakers",
    () => {
      // A timer wakes the worker every 10 ms from the same select; main sleeps in between.
      const loop = (wakeActor: number): Step[] => {
        const steps: Step[] = [...start];
        for (let t = 3; t < 100; t += 10)
          steps.push(
            ["GoBlock", 7, t, "select", "main.worker /src/main.go:14"],
            ["GoUnblock", 7, t + 10, "", undefined, wakeActor],
            ["GoStart", 7, t + 10],
          );
        steps.push(["GoBlock", 7, 103, "select", "main.worker /src/main.go:14"]);
        return steps;
      };
      const midWait = states([...loop(-1), ["GoBlock", 1, 108, "sleep", "main.main /src/main.go:20"]], "timeout");
      expect(midWait.finalBlocks.get(WORKER.canonicalId)).toMatchObject({
        reason: "select",
        earlierWakes: 10,
        longestEarlierBlockNs: 10 * MS,
        blockedNs: 5 * MS,
      });
      expect(midWait.wakes.get(WORKER.canonicalId)?.get("select|main.worker /src/main.go:14")).toEqual({
        count: 10,
        timer: 10,
        longestNs: 10 * MS,
        wakers: ["(timer)"],
      });
      // Cut by the deadline mid-wait, or a second after the loop stopped waking: alive either way, no finding.
      expect(
        detectLeaks({
          program: "p",
          runs: [run([...loop(-1), ["GoBlock", 1, 108, "sleep", "main.main /src/main.go:20"]], "timeout")],
        }),
      ).toEqual([]);
      expect(
        detectLeaks({
          program: "p",
          runs: [run([...loop(-1), ["GoBlock", 1, 1103, "sleep", "main.main /src/main.go:20"]], "timeout")],
        }),
      ).toEqual([]);
      // The program returned while the timer loop waited: it outlived main, never "blocked forever".
      const [outlived] = detectLeaks({ program: "p", runs: [run([...loop(-1), ["GoEnd", 1, 104]], "ok")] });
      expect(outlived).toMatchObject({ kind: "outlived", gating: false, wakesAtSite: 10 });
      // Woken by main each time (a channel), main still sleeping at the cut: inconclusive.
      const [byLiveMain] = detectLeaks({
        program: "p",
        runs: [run([...loop(1), ["GoBlock", 1, 108, "sleep", "main.main /src/main.go:20"]], "timeout")],
      });
      expect(byLiveMain).toMatchObject({ kind: "inconclusive", gating: false });
      expect(byLiveMain.why).toContain("main.main woke it there before and was still sleeping");
      // Woken by main each time, and main returned: its partner is gone, a leak (likely without the runtime's proof).
      const [byEndedMain] = detectLeaks({ program: "p", runs: [run([...loop(1), ["GoEnd", 1, 104]], "ok")] });
      expect(byEndedMain).toMatchObject({ kind: "leak", verdict: "likely", gating: true });
    },
  );

  test(
    "the source decides a wait with a timer or context case: a one-shot timer wait is inconclusive, " +
      "never counted; a context wait outlives its owner",
    () => {
      const leaked = run([...start, selectBlock, mainEnds], "ok");
      const timer = { timer: true, context: false };
      const context = { timer: false, context: true };
      expect(
        detectLeaks({ program: "p", runs: [leaked] }, { waitSourceAt: () => timer }).map((f) => [f.kind, f.gating]),
      ).toEqual([["inconclusive", false]]);
      expect(detectLeaks({ program: "p", runs: [leaked] }, { waitSourceAt: () => context }).map((f) => f.kind)).toEqual(
        ["outlived"],
      );
      expect(detectLeaks({ program: "p", runs: [leaked] }, { waitSourceAt: () => null }).map((f) => f.kind)).toEqual([
        "leak",
      ]);
    },
  );

  test("in a hang, a timer case no timer ever fired that has waited most of the run is not alive: a drain of a spent timer deadlocks", () => {
    const timer = {
      waitSourceAt: (_: string, site: string | null) =>
        site === "main.worker /src/main.go:14" ? { timer: true, context: false } : null,
    };
    // The worker has waited 1 ms of a 4 ms trace: young, the timer may still fire; no finding for it.
    const young: Step[] = [...start, selectBlock, ["GoBlock", 1, 4, "sync", "main.main /src/main.go:20"]];
    expect(detectLeaks({ program: "p", runs: [run(young, "timeout")] }, timer).map((f) => f.goroutine)).not.toContain(
      WORKER.canonicalId,
    );
    // Blocked since 3 ms of a 100 ms trace with every goroutine blocked: a deadlock.
    const hangOld: Step[] = [
      ...start,
      selectBlock,
      ["GoBlock", 1, 4, "sync", "main.main /src/main.go:20"],
      ["GoStart", 1, 5],
      ["GoBlock", 1, 100, "sync", "main.main /src/main.go:20"],
    ];
    expect(
      detectLeaks({ program: "p", runs: [run(hangOld, "timeout")] }, timer).map((f) => [f.goroutine, f.kind, f.gating]),
    ).toEqual([
      ["main.main", "deadlock", true],
      [WORKER.canonicalId, "deadlock", true],
    ]);
  });

  test("a waker still runnable or not yet started when the program exits makes an exit race inconclusive", () => {
    const SENDER: GoroutineInfo = {
      goroutine: 8,
      canonicalId: "main.main/main.sender@main.go:11#0",
      parent: 1,
      entry: "main.sender",
      creationSite: "main.main /src/main.go:11",
      isRoot: false,
    };
    const goroutines = [ROOT, WORKER, SENDER];
    const recv: Step = ["GoBlock", 7, 3, "chan receive", "main.worker /src/main.go:14"];
    // Run 0: the sender woke the worker and everything ended.
    const woken = run(
      [
        ...start,
        recv,
        ["GoCreate", 8, 4, "", "main.main /src/main.go:11"],
        ["GoStart", 8, 5],
        ["GoUnblock", 7, 6, "", undefined, 8],
        ["GoEnd", 8, 7],
        ["GoStart", 7, 8],
        ["GoEnd", 7, 9],
        mainEnds,
      ],
      "ok",
      0,
      false,
      goroutines,
    );
    // Run 1: main returned right after creating the sender, which never ran.
    const exitRace = run(
      [...start, recv, ["GoCreate", 8, 4, "", "main.main /src/main.go:11"], mainEnds],
      "ok",
      1,
      false,
      goroutines,
    );
    const [finding] = detectLeaks({ program: "p", runs: [woken, exitRace] });
    expect(finding).toMatchObject({
      goroutine: WORKER.canonicalId,
      kind: "inconclusive",
      wakers: [SENDER.canonicalId],
    });
    expect(finding.why).toContain("still not-started");
    // Run 2: the sender ended without sending (it took another path): a proven leak.
    const senderGone = run(
      [
        ...start,
        recv,
        ["GoCreate", 8, 4, "", "main.main /src/main.go:11"],
        ["GoStart", 8, 5],
        ["GoEnd", 8, 6],
        mainEnds,
      ],
      "ok",
      2,
      false,
      goroutines,
    );
    expect(detectLeaks({ program: "p", runs: [woken, senderGone] })[0]).toMatchObject({
      kind: "leak",
      verdict: "likely",
      evidence: { trace: "wakers-gone" },
    });
  });

  test("a wait nobody is known to wake, left while a goroutine of the same owner was still at work, is inconclusive", () => {
    const SIBLING: GoroutineInfo = {
      goroutine: 8,
      canonicalId: "main.main/main.flusher@main.go:12#0",
      parent: 1,
      entry: "main.flusher",
      creationSite: "main.main /src/main.go:12",
      isRoot: false,
    };
    const goroutines = [ROOT, WORKER, SIBLING];
    const sibling: Step[] = [
      ["GoCreate", 8, 2, "", "main.main /src/main.go:12"],
      ["GoStart", 8, 2],
    ];
    const asleep = run(
      [...start, ...sibling, ["GoBlock", 8, 3, "sleep", "main.flusher /src/main.go:30"], selectBlock, mainEnds],
      "ok",
      0,
      false,
      goroutines,
    );
    const [finding] = detectLeaks({ program: "p", runs: [asleep] });
    expect(finding).toMatchObject({ goroutine: WORKER.canonicalId, kind: "inconclusive", gating: false });
    expect(finding.why).toContain(
      `${SIBLING.canonicalId}, of the same program, was still sleeping when the trace stopped`,
    );
    // The sibling had ended: nothing could wake the worker any more.
    const ended = run([...start, ...sibling, ["GoEnd", 8, 3], selectBlock, mainEnds], "ok", 0, false, goroutines);
    expect(detectLeaks({ program: "p", runs: [ended] })[0]).toMatchObject({
      kind: "leak",
      verdict: "likely",
      gating: true,
    });
  });

  test("ownership: goroutines from before the trace or from TestMain are background, never gating; a test's own are charged to it", () => {
    const owned = (canonicalId: string): GoroutineInfo[] => [ROOT, { ...WORKER, canonicalId }];
    const findingOf = (canonicalId: string) =>
      detectLeaks({
        program: "p",
        runs: [run([...start, selectBlock, mainEnds], "ok", 0, false, owned(canonicalId))],
      })[0];
    expect(findingOf("(pre-trace)/pool.purge#0")).toMatchObject({
      kind: "background",
      gating: false,
      owner: { kind: "background", why: "pre-trace" },
    });
    expect(findingOf("TestMain/pkg.janitor@main_test.go:9#0")).toMatchObject({
      kind: "background",
      owner: { kind: "background", why: "TestMain" },
    });
    expect(findingOf("TestPool/pkg.worker@pool.go:30#0")).toMatchObject({
      kind: "leak",
      gating: true,
      owner: { kind: "test", root: "TestPool" },
    });
    expect(findingOf("ExampleCache/pkg.loop@cache.go:40#0")).toMatchObject({
      kind: "leak",
      owner: { kind: "test", root: "ExampleCache" },
    });
  });

  test("goroutines blocked when a run crashed are reported apart, never as leaks, and the crashed run counts for nothing in the findings", () => {
    // main waits on a WaitGroup (sync) while the worker panics: the crash ends the wait.
    const crash: Step[] = [
      ...start,
      ["GoBlock", 1, 3, "sync", "main.main /src/main.go:20"],
      ["GoSched", 7, 4, "preempted", "main.worker /src/main.go:12"],
    ];
    expect(detectLeaks({ program: "p", runs: [run(crash, "panic", 0, true), run(crash, "panic", 1, true)] })).toEqual(
      [],
    );
    expect(
      detectBlockedAtCrash({ program: "p", runs: [run(crash, "panic", 0, true), run(crash, "panic", 1, true)] }),
    ).toEqual([
      {
        program: "p",
        goroutine: "main.main",
        test: null,
        entry: "main.main",
        isRoot: true,
        reason: "sync",
        creationSite: null,
        blockingSite: "main.main /src/main.go:20",
        runsCrashed: 2,
      },
    ]);
    // A leak in a run that finished is still a leak; the crashed run is not one of its trials.
    const leaked = run([...start, selectBlock, mainEnds], "ok", 0);
    const crashedWhileBlocked = run(
      [...start, selectBlock, ["GoSched", 1, 4, "preempted", "main.main /src/main.go:21"]],
      "panic",
      1,
      true,
    );
    const [finding, ...rest] = detectLeaks({ program: "p", runs: [leaked, crashedWhileBlocked] });
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ goroutine: WORKER.canonicalId, runsSeen: 1, runsBlocked: 1, kind: "leak" });
    expect(
      detectBlockedAtCrash({ program: "p", runs: [leaked, crashedWhileBlocked] }).map((b) => [
        b.goroutine,
        b.reason,
        b.runsCrashed,
      ]),
    ).toEqual([[WORKER.canonicalId, "select", 1]]);
  });

  test("creation site keys come from the canonical id's last segment", () => {
    expect(creationSiteKey("main.main/main.worker@main.go:10#0")).toBe("main.go:10");
    expect(creationSiteKey("TestX/pkg.TestX.func1@x_test.go:3#0/pkg.f@y.go:12#2")).toBe("y.go:12");
    expect(creationSiteKey("main.main")).toBeNull();
  });
});
