// The detector's core on hand-built runs: each case is a sequence of records whose
// meaning is spelled out, so the rules (real block reasons, no later GoUnblock, the
// timer margin in timed-out runs, leak vs deadlock, schedule dependence) are pinned down.

import { describe, expect, test } from "vitest";
import { creationSiteKey, detectBlockedAtCrash, detectLeaks, runGoroutineStates, runStateFold, type AnalysedRun, type LeakRun, type RunEnd } from "../../src/leaks/index.js";
import type { GoroutineInfo, GoroutineRecord, RecordKind } from "../../src/trace/types.js";

const MS = 1_000_000;
type Step = [kind: RecordKind, gid: number, timeMs: number, reason?: string, site?: string, actor?: number];

const ROOT: GoroutineInfo = { goroutine: 1, canonicalId: "main.main", parent: null, entry: "main.main", creationSite: null, isRoot: true };
const WORKER: GoroutineInfo = { goroutine: 7, canonicalId: "main.main/main.worker@main.go:10#0", parent: 1, entry: "main.worker", creationSite: "main.main /src/main.go:10", isRoot: false };

/** Steps become records; an unblock's actor is goroutine 1 unless given (-1: none, as when a timer fires). */
function records(steps: readonly Step[]): GoroutineRecord[] {
  return steps.map(([kind, goroutine, timeMs, reason = "", site = null, actor], seq) => ({
    seq, timeNs: timeMs * MS, kind, goroutine, actor: kind === "GoUnblock" ? (actor === -1 ? null : actor ?? 1) : null, reason, site,
  }));
}

function header(outcome: RunEnd, runIndex: number, crashed: boolean): LeakRun {
  return { runId: runIndex + 1, runIndex, config: "procs-2", outcome, runtimeDeadlock: false, crashed, goroutines: [ROOT, WORKER] };
}

/** The end states of one run of `steps`, as the detector reads it. */
function states(steps: readonly Step[], outcome: RunEnd, options: { timerMargin: number }) {
  return runGoroutineStates(header(outcome, 0, false), records(steps), options);
}

function run(steps: readonly Step[], outcome: RunEnd = "ok", runIndex = 0, crashed = false): AnalysedRun {
  const run = header(outcome, runIndex, crashed);
  return { run, states: runGoroutineStates(run, records(steps), { timerMargin: 4 }) };
}

const start: Step[] = [["GoStart", 1, 0], ["GoCreate", 7, 1, "", "main.main /src/main.go:10"], ["GoStart", 7, 2]];
const selectBlock: Step = ["GoBlock", 7, 3, "select", "main.worker /src/main.go:14"];
const mainEnds: Step = ["GoEnd", 1, 5];

describe("runGoroutineStates and detectLeaks", () => {
  test("a goroutine left in select when main returns is a formal leak in every run", () => {
    const runs = [0, 1, 2].map((i) => run([...start, selectBlock, mainEnds], "ok", i));
    const [finding, ...rest] = detectLeaks({ program: "p", runs });
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      goroutine: WORKER.canonicalId, reason: "select", formal: true, kind: "leak",
      creationSite: "main.main /src/main.go:10", creationSiteKey: "main.go:10", blockingSite: "main.worker /src/main.go:14",
      runsSeen: 3, runsBlocked: 3, runsWoken: 0, blockedFraction: 1,
    });
    expect(finding.pUnblockUpper).toBeCloseTo(1 - Math.pow(0.05, 1 / 3), 12);
    // The block is the 4th of the six-event sequence (depth 3): the signature holds from depth 4 on.
    expect(finding.early).toMatchObject({ firstDepthAllBlockedRuns: 4, firstDepthAllRuns: 4, runsFalseAlarm: 0, curve: [{ depth: 4, runsHolding: 3 }] });
  });

  test("a block that is later unblocked, a sleep and a GC suspension are not leaks", () => {
    const woken = run([...start, selectBlock, ["GoUnblock", 7, 4], ["GoStart", 7, 4], ["GoEnd", 7, 5], mainEnds]);
    const sleeping = run([...start, ["GoBlock", 7, 3, "sleep", "main.worker /src/main.go:15"], mainEnds]);
    const gc = run([...start, ["GoBlock", 7, 3, "preempted", "main.worker /src/main.go:15"], mainEnds]);
    for (const r of [woken, sleeping, gc]) expect(detectLeaks({ program: "p", runs: [r] })).toEqual([]);
  });

  test("only some runs leaking is reported with its fraction, and the woken runs loosen the bound", () => {
    const leaking = run([...start, selectBlock, mainEnds], "ok", 0);
    const woken = run([...start, selectBlock, ["GoUnblock", 7, 4], ["GoStart", 7, 4], ["GoEnd", 7, 5], mainEnds], "ok", 1);
    const neverBlocks = run([...start, ["GoEnd", 7, 4], mainEnds], "ok", 2);
    const [finding] = detectLeaks({ program: "p", runs: [leaking, woken, neverBlocks] });
    expect(finding).toMatchObject({ runsSeen: 3, runsBlocked: 1, runsWoken: 1 });
    expect(finding.blockedFraction).toBeCloseTo(1 / 3, 12);
    // 1 unblock in 2 trials: P(X ≤ 1) = 1 − p² = 0.05 at p = √0.95.
    expect(finding.pUnblockUpper).toBeCloseTo(Math.sqrt(0.95), 8);
    expect(finding.early.firstDepthAllRuns).toBeNull();
    expect(finding.early.runsFalseAlarm).toBe(1);
  });

  test("a hang with every user goroutine blocked is a deadlock; with a sleeper still alive it is a leak", () => {
    const hung: Step[] = [...start, selectBlock, ["GoBlock", 1, 4, "sync", "main.main /src/main.go:20"]];
    const findings = detectLeaks({ program: "p", runs: [run(hung, "timeout")] });
    expect(findings.map((f) => [f.goroutine, f.reason, f.kind])).toEqual([
      ["main.main", "sync", "deadlock"],
      [WORKER.canonicalId, "select", "deadlock"],
    ]);
    expect(findings[0]).toMatchObject({ isRoot: true, creationSiteKey: null });
    const rootSleeps: Step[] = [...start, selectBlock, ["GoBlock", 1, 4, "sleep", "main.main /src/main.go:20"]];
    expect(detectLeaks({ program: "p", runs: [run(rootSleeps, "timeout")] }).map((f) => f.kind)).toEqual(["leak"]);
  });

  test("a timer-driven loop stopped mid-wait by the deadline is not a leak; one that stopped waking, or is woken by goroutines, is", () => {
    // A timer wakes the worker every 10 ms from the same select; main sleeps in between.
    const loop = (wakeActor: number): Step[] => {
      const steps: Step[] = [...start];
      for (let t = 3; t < 100; t += 10) steps.push(["GoBlock", 7, t, "select", "main.worker /src/main.go:14"], ["GoUnblock", 7, t + 10, "", undefined, wakeActor], ["GoStart", 7, t + 10]);
      steps.push(["GoBlock", 7, 103, "select", "main.worker /src/main.go:14"]);
      return steps;
    };
    const options = { timerMargin: 4 };
    // The run's last user record comes 5 ms into the last wait: the loop was caught mid-wait.
    const midWait = states([...loop(-1), ["GoBlock", 1, 108, "sleep", "main.main /src/main.go:20"]], "timeout", options);
    expect(midWait.ambiguous.has(WORKER.canonicalId)).toBe(true);
    expect(midWait.finalBlocks.size).toBe(0);
    // Main kept running for a second after the last wait began: the loop stopped waking.
    const stuck = states([...loop(-1), ["GoBlock", 1, 1103, "sleep", "main.main /src/main.go:20"]], "timeout", options);
    expect(stuck.finalBlocks.get(WORKER.canonicalId)).toMatchObject({ reason: "select", earlierWakes: 10, longestEarlierBlockNs: 10 * MS, blockedNs: 1000 * MS });
    // Woken by main each time (a channel, not a timer): mid-wait or not, it is a candidate.
    const byMain = states([...loop(1), ["GoBlock", 1, 108, "sleep", "main.main /src/main.go:20"]], "timeout", options);
    expect(byMain.finalBlocks.has(WORKER.canonicalId)).toBe(true);
    // A program that returned while the timer loop waited: the goroutine outlived main, a leak.
    const returned = states([...loop(-1), ["GoEnd", 1, 104]], "ok", options);
    expect(returned.finalBlocks.has(WORKER.canonicalId)).toBe(true);
  });

  test("the fold fed one record at a time ends in the same states as the whole run at once", () => {
    const steps: Step[] = [...start, selectBlock, ["GoUnblock", 7, 4], ["GoStart", 7, 4], selectBlock, ["GoBlock", 1, 6, "sync", "main.main /src/main.go:20"]];
    const fold = runStateFold(header("timeout", 0, false), { timerMargin: 4 });
    for (const r of records(steps)) fold.add(r);
    const folded = fold.finish();
    expect(folded).toEqual(states(steps, "timeout", { timerMargin: 4 }));
    expect([...folded.finalBlocks.keys()].sort()).toEqual([ROOT.canonicalId, WORKER.canonicalId]);
    expect(folded.finalBlocks.get(WORKER.canonicalId)).toMatchObject({ depth: 6, runEvents: 8, earlierWakes: 1 });
  });

  test("goroutines blocked when a run crashed are reported apart, never as leaks, and the crashed run counts for nothing in the findings", () => {
    // main waits on a WaitGroup (sync) while the worker panics: the crash ends the wait.
    const crash: Step[] = [...start, ["GoBlock", 1, 3, "sync", "main.main /src/main.go:20"], ["GoSched", 7, 4, "preempted", "main.worker /src/main.go:12"]];
    expect(detectLeaks({ program: "p", runs: [run(crash, "panic", 0, true), run(crash, "panic", 1, true)] })).toEqual([]);
    expect(detectBlockedAtCrash({ program: "p", runs: [run(crash, "panic", 0, true), run(crash, "panic", 1, true)] })).toEqual([
      { program: "p", goroutine: "main.main", test: null, entry: "main.main", isRoot: true, reason: "sync", creationSite: null, blockingSite: "main.main /src/main.go:20", runsCrashed: 2 },
    ]);
    // A leak in a run that finished is still a leak; the crashed run is not one of its trials.
    const leaked = run([...start, selectBlock, mainEnds], "ok", 0);
    const crashedWhileBlocked = run([...start, selectBlock, ["GoSched", 1, 4, "preempted", "main.main /src/main.go:21"]], "panic", 1, true);
    const [finding, ...rest] = detectLeaks({ program: "p", runs: [leaked, crashedWhileBlocked] });
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ goroutine: WORKER.canonicalId, runsSeen: 1, runsBlocked: 1, kind: "leak" });
    expect(detectBlockedAtCrash({ program: "p", runs: [leaked, crashedWhileBlocked] }).map((b) => [b.goroutine, b.reason, b.runsCrashed])).toEqual([[WORKER.canonicalId, "select", 1]]);
  });

  test("creation site keys come from the canonical id's last segment", () => {
    expect(creationSiteKey("main.main/main.worker@main.go:10#0")).toBe("main.go:10");
    expect(creationSiteKey("TestX/pkg.TestX.func1@x_test.go:3#0/pkg.f@y.go:12#2")).toBe("y.go:12");
    expect(creationSiteKey("main.main")).toBeNull();
  });
});
