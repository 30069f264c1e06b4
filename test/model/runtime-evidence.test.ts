// The one rule with what the runtime and the run's end add to the trace, on hand-built runs:
// a goroutine the leak profile proved leaked is blocked forever even when its wait has a
// context case; a run whose user goroutines all blocked is a deadlock only when the process
// hung (goroutine 1, the test driver, included), and otherwise says where it hung; a
// goroutine its test left in a network wait outlived the test (a server never shut down);
// a daemon's main parked in select {} is the program's lifetime, not a leak; a background
// ticker loop the trace stopped while it ran is background all the same, from the runtime's view.

import { describe, expect, test } from "vitest";
import { detectLeaks, runGoroutineStates, type AnalysedRun, type LeakRun, type RunEnd } from "../../src/leaks/index.js";
import { daemonParks, hangOutsideUser, judgeProgram, processHang, type RuntimeView } from "../../src/model/index.js";
import type { GoroutineInfo, GoroutineRecord, RecordKind, RuntimeGoroutine } from "../../src/core/index.js";

const MS = 1_000_000;
type Step = [kind: RecordKind, gid: number, timeMs: number, reason?: string, site?: string];

const TEST: GoroutineInfo = {
  goroutine: 20,
  canonicalId: "TestServe",
  parent: null,
  entry: "example.com/m/srv.TestServe",
  creationSite: null,
  isRoot: true,
};
const WORKER: GoroutineInfo = {
  goroutine: 21,
  canonicalId: "TestServe/srv.worker@srv.go:10#0",
  parent: 20,
  entry: "example.com/m/srv.worker",
  creationSite: "example.com/m/srv.TestServe srv_test.go:10",
  isRoot: false,
};
const MAIN: GoroutineInfo = {
  goroutine: 1,
  canonicalId: "main.main",
  parent: null,
  entry: "main.main",
  creationSite: null,
  isRoot: true,
};
const DAEMON_WORKER: GoroutineInfo = {
  goroutine: 7,
  canonicalId: "main.main/main.worker@main.go:12#0",
  parent: 1,
  entry: "main.worker",
  creationSite: "main.main main.go:12",
  isRoot: false,
};

function records(steps: readonly Step[]): GoroutineRecord[] {
  return steps.map(([kind, goroutine, timeMs, reason = "", site = null], seq) => ({
    seq,
    timeNs: timeMs * MS,
    kind,
    goroutine,
    actor: kind === "GoUnblock" ? 1 : null,
    reason,
    site,
  }));
}

function view(goroutines: readonly RuntimeGoroutine[], source: RuntimeView["source"] = "leak-profile"): RuntimeView {
  return { source, taken: "deadline", goroutines: new Map(goroutines.map((g) => [g.gid, g])) };
}

function run(
  steps: readonly Step[],
  outcome: RunEnd,
  extra: Partial<LeakRun> = {},
  goroutines: readonly GoroutineInfo[] = [TEST, WORKER],
): AnalysedRun {
  const leakRun: LeakRun = {
    runId: 1,
    runIndex: 0,
    config: "procs-2",
    outcome,
    runtimeDeadlock: false,
    crashed: false,
    wallMs: 100,
    goroutines,
    ...extra,
  };
  return { run: leakRun, states: runGoroutineStates(leakRun, records(steps)) };
}

/** The test starts a worker, and both block for good: the worker in a select, the test waiting for it. */
const bothBlocked: Step[] = [
  ["GoStart", 20, 0],
  ["GoCreate", 21, 1, "", "example.com/m/srv.TestServe srv_test.go:10"],
  ["GoStart", 21, 2],
  ["GoBlock", 21, 3, "select", "example.com/m/srv.worker srv.go:14"],
  ["GoBlock", 20, 4, "chan receive", "example.com/m/srv.TestServe srv_test.go:12"],
];

describe("what the runtime and the run's end add to the rule", () => {
  test("every user goroutine blocked but goroutine 1 in an IO wait: not a deadlock, and where the run hung", () => {
    const r = run(bothBlocked, "timeout", {
      stop: "deadline",
      runtime: view([
        { gid: 1, wait: "IO wait", leaked: false, top: "example.com/m/srv.ExampleFetch example_test.go:22" },
        { gid: 20, wait: "chan receive", leaked: false, top: "example.com/m/srv.TestServe srv_test.go:12" },
        { gid: 21, wait: "select", leaked: false, top: "example.com/m/srv.worker srv.go:14" },
      ]),
    });
    expect(r.states.allBlocked).toBe(true);
    expect(processHang(r.run)).toBeNull();
    expect(hangOutsideUser(r.run)).toEqual({
      wait: "IO wait",
      top: "example.com/m/srv.ExampleFetch example_test.go:22",
    });
    const judged = judgeProgram({ program: "p", runs: [r] });
    expect(judged.map((j) => j.kind)).not.toContain("deadlock");
  });

  test("the same hang with goroutine 1 proven leaked, or stopped by the agent, is a deadlock proven by the runtime", () => {
    const leaked = run(bothBlocked, "timeout", {
      stop: "deadline",
      runtime: view([{ gid: 1, wait: "chan receive", leaked: true, top: null }]),
    });
    const stopped = run(bothBlocked, "timeout", { stop: "hang", runtime: null });
    for (const r of [leaked, stopped]) {
      expect(processHang(r.run)).toMatchObject({ proven: true });
      const judged = judgeProgram({ program: "p", runs: [r] });
      expect(judged.map((j) => [j.goroutine, j.kind, j.verdict, j.gating])).toEqual([
        ["TestServe", "deadlock", "proven", true],
        [WORKER.canonicalId, "deadlock", "proven", true],
      ]);
    }
  });

  test("without the runtime's view a test binary's hang is likely, a main program's proven", () => {
    expect(processHang(run(bothBlocked, "timeout", { stop: "deadline" }).run)).toMatchObject({ proven: false });
    const mainSteps: Step[] = [
      ["GoStart", 1, 0],
      ["GoCreate", 7, 1, "", "main.main main.go:12"],
      ["GoStart", 7, 2],
      ["GoBlock", 7, 3, "chan send", "main.worker main.go:14"],
      ["GoBlock", 1, 4, "sync", "main.main main.go:20"],
    ];
    const main = run(mainSteps, "timeout", { stop: "deadline" }, [MAIN, DAEMON_WORKER]);
    expect(processHang(main.run)).toMatchObject({ proven: true });
  });

  test("a goroutine the runtime proved leaked is blocked forever, though its wait has a context case", () => {
    const steps: Step[] = [
      ["GoStart", 20, 0],
      ["GoCreate", 21, 1, "", "example.com/m/srv.TestServe srv_test.go:10"],
      ["GoStart", 21, 2],
      ["GoBlock", 21, 3, "select", "example.com/m/srv.worker srv.go:14"],
      ["GoEnd", 20, 5],
    ];
    const r = run(steps, "ok", {
      runtime: view([{ gid: 21, wait: "select", leaked: true, top: "example.com/m/srv.worker srv.go:14" }]),
    });
    const context = { timer: false, context: true };
    const [worker] = judgeProgram({ program: "p", runs: [r] }, { waitSourceAt: () => context });
    expect(worker).toMatchObject({ kind: "leak", verdict: "proven", gating: true });
    expect(worker.why).toMatch(/proven by the runtime/);
    // Without the proof, the context case keeps it alive: outlived.
    const alone = run(steps, "ok");
    expect(judgeProgram({ program: "p", runs: [alone] }, { waitSourceAt: () => context })[0]).toMatchObject({
      kind: "outlived",
    });
  });

  test("a goroutine its test left in a network wait outlived the test: a server never shut down", () => {
    const steps: Step[] = [
      ["GoStart", 20, 0],
      ["GoCreate", 21, 1, "", "example.com/m/srv.TestServe srv_test.go:10"],
      ["GoStart", 21, 2],
      ["GoBlock", 21, 3, "network", "example.com/m/srv.serve srv.go:30"],
      ["GoEnd", 20, 5],
    ];
    const [finding, ...rest] = detectLeaks({ program: "p", runs: [run(steps, "ok")] });
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      goroutine: WORKER.canonicalId,
      reason: "network",
      wait: "network",
      kind: "outlived",
      verdict: "proven",
      gating: false,
      blockingSite: "example.com/m/srv.serve srv.go:30",
    });
    expect(finding.why).toMatch(/network .* never shut down.*TestServe ended/);
    // Never blocked: a run of it can still be a deadlock of nothing.
    expect(run(steps, "ok").states.allBlocked).toBe(false);
    // While its test still runs (a cut run), it is no finding.
    const running: Step[] = steps.slice(0, 4);
    expect(detectLeaks({ program: "p", runs: [run(running, "timeout", { stop: "deadline" })] })).toEqual([]);
  });

  test("a daemon's main parked in select {} is its lifetime; its leaked worker is still blocked forever", () => {
    const steps: Step[] = [
      ["GoStart", 1, 0],
      ["GoCreate", 7, 1, "", "main.main main.go:12"],
      ["GoStart", 7, 2],
      ["GoBlock", 7, 3, "chan receive", "main.worker main.go:14"],
      ["GoBlock", 1, 4, "forever", "main.main main.go:20"],
    ];
    const r = run(
      steps,
      "timeout",
      {
        stop: "budget",
        runtime: view([
          { gid: 1, wait: "select (no cases)", leaked: true, top: "main.main main.go:20" },
          { gid: 7, wait: "chan receive", leaked: true, top: "main.worker main.go:14" },
        ]),
      },
      [MAIN, DAEMON_WORKER],
    );
    const judged = judgeProgram({ program: "daemon", runs: [r] });
    // Every goroutine of the process is blocked for good: the daemon is dead, and its worker's wait is the deadlock.
    expect(judged.map((j) => [j.goroutine, j.kind, j.verdict, j.gating])).toEqual([
      [DAEMON_WORKER.canonicalId, "deadlock", "proven", true],
    ]);
    // With a live ticker loop beside it, the worker is a leak the runtime proved, and main still no finding.
    const ticking = run(
      [
        ...steps,
        ["GoCreate", 8, 5, "", "main.main main.go:13"],
        ["GoStart", 8, 6],
        ["GoBlock", 8, 7, "sleep", "main.tick main.go:30"],
      ],
      "timeout",
      { stop: "budget", runtime: r.run.runtime },
      [MAIN, DAEMON_WORKER, { ...DAEMON_WORKER, goroutine: 8, canonicalId: "main.main/main.tick@main.go:13#0" }],
    );
    expect(judgeProgram({ program: "daemon", runs: [ticking] }).map((j) => [j.goroutine, j.kind, j.verdict])).toEqual([
      [DAEMON_WORKER.canonicalId, "leak", "proven"],
    ]);
  });

  test("a main parked in select {} in a run the runtime proved hung is no daemon: nothing could go on", () => {
    const alone: Step[] = [
      ["GoStart", 1, 0],
      ["GoBlock", 1, 4, "forever", "main.main main.go:9"],
    ];
    const stopped = (stop: "hang" | "budget"): AnalysedRun =>
      run(
        alone,
        "timeout",
        { stop, runtime: view([{ gid: 1, wait: "select (no cases)", leaked: true, top: "main.main main.go:9" }]) },
        [MAIN],
      );
    // The agent stopped it: every other goroutine was leaked too ("all goroutines are asleep" untraced).
    expect(
      judgeProgram({ program: "selectmain", runs: [stopped("hang")] }).map((j) => [j.goroutine, j.kind, j.verdict]),
    ).toEqual([["main.main", "deadlock", "proven"]]);
    expect(daemonParks(stopped("hang"), stopped("hang").states.finalBlocks.get("main.main")!, null)).toBe(false);
    // Stopped at its budget instead, it is a daemon's lifetime.
    const budget = stopped("budget");
    expect(judgeProgram({ program: "selectmain", runs: [budget] })).toEqual([]);
    expect(daemonParks(budget, budget.states.finalBlocks.get("main.main")!, null)).toBe(true);
  });

  test("a wait the runtime finds reachable, while a background goroutine that could reach it lives, is not blocked forever", () => {
    const PURGER: GoroutineInfo = {
      goroutine: 30,
      canonicalId: "(pre-trace)/srv.(*Pool).purge#0",
      parent: null,
      entry: "example.com/m/srv.(*Pool).purge",
      creationSite: null,
      isRoot: false,
    };
    const steps: Step[] = [
      ["Initial", 30, 0, "waiting"],
      ["GoStart", 20, 0],
      ["GoCreate", 21, 1, "", "example.com/m/srv.TestServe srv_test.go:10"],
      ["GoStart", 21, 2],
      ["GoBlock", 21, 3, "chan receive", "example.com/m/srv.(*Pool).work srv.go:55"],
      ["GoEnd", 20, 5],
    ];
    const reachable = view([
      { gid: 21, wait: "chan receive", leaked: false, top: "example.com/m/srv.(*Pool).work srv.go:55" },
      { gid: 30, wait: "chan receive", leaked: false, top: "example.com/m/srv.(*Pool).purge srv.go:67" },
    ]);
    const withPurger = run(steps, "ok", { runtime: reachable }, [TEST, WORKER, PURGER]);
    const worker = judgeProgram({ program: "p", runs: [withPurger] }).find((j) => j.goroutine === WORKER.canonicalId)!;
    expect(worker).toMatchObject({
      kind: "outlived",
      gating: false,
      evidence: { runtime: "reachable", trace: "waker-live" },
    });
    expect(worker.why).toMatch(/still reachable.*purge#0 was still alive/);
    // Nothing alive that could reach it: still a likely leak, which says the proof is missing.
    const alone = run(
      steps.filter((x) => x[1] !== 30),
      "ok",
      { runtime: view([reachable.goroutines.get(21)!]) },
    );
    const [lone] = judgeProgram({ program: "p", runs: [alone] });
    expect(lone).toMatchObject({ kind: "leak", verdict: "likely", gating: true, evidence: { runtime: "reachable" } });
    expect(lone.why).toMatch(/not proven: the runtime found what it waits on still reachable/);
  });

  test("a background ticker loop the trace stopped while it ran is background as when the trace saw it blocked: the runtime saw it wait", () => {
    const JANITOR: GoroutineInfo = {
      goroutine: 30,
      canonicalId: "(pre-trace)/srv.janitor#0",
      parent: null,
      entry: "example.com/m/srv.janitor",
      creationSite: null,
      isRoot: false,
    };
    const AT = "example.com/m/srv.janitor srv_test.go:20";
    const tick: Step[] = [
      ["Initial", 30, 0, "waiting"],
      ["GoStart", 20, 0],
      ["GoUnblock", 30, 1],
      ["GoStart", 30, 2],
      ["GoBlock", 30, 3, "chan receive", AT],
      ["GoEnd", 20, 4],
    ];
    // Its last tick lands just before the trace stops: running when it stopped, back in its receive after.
    const late: Step[] = [...tick.slice(0, -1), ["GoUnblock", 30, 4], ["GoStart", 30, 5], ["GoEnd", 20, 6]];
    const waiting = view([{ gid: 30, wait: "chan receive", leaked: false, top: AT }]);
    const blocked = run(tick, "ok", { runtime: waiting }, [TEST, JANITOR]);
    const running = run(late, "ok", { runtime: waiting }, [TEST, JANITOR]);
    expect(running.states.ends.get(JANITOR.canonicalId)).toBe("running");
    const [seenBlocked] = detectLeaks({ program: "p", runs: [blocked] });
    const [seenRunning] = detectLeaks({ program: "p", runs: [running] });
    for (const f of [seenBlocked, seenRunning])
      expect(f).toMatchObject({
        goroutine: JANITOR.canonicalId,
        kind: "background",
        gating: false,
        reason: "chan receive",
        wait: "chan receive",
        blockingSite: AT,
        runsBlocked: 1,
        evidence: { runtime: "reachable", trace: "owner" },
      });
    expect(seenRunning.bug).toBe(seenBlocked.bug);
    expect(seenRunning.why).toMatch(
      /before tracing began.*the trace stopped while it was running; the runtime saw it waiting in chan receive at the run's end/,
    );
    // The trace has no depth for a wait only the runtime saw.
    expect(seenRunning.early).toMatchObject({ firstDepthAllBlockedRuns: null, firstDepthFraction: null, curve: [] });
    // Without the runtime's view nothing says it waits: no finding, as before.
    expect(detectLeaks({ program: "p", runs: [run(late, "ok", {}, [TEST, JANITOR])] })).toEqual([]);
    // A test's own goroutine is judged by its trace alone (wakers and wake-ups the runtime does not give).
    const own = run(
      late.map(([kind, gid, ...rest]): Step => [kind, gid === 30 ? 21 : gid, ...rest]),
      "ok",
      { runtime: view([{ gid: 21, wait: "chan receive", leaked: false, top: AT }]) },
    );
    expect(judgeProgram({ program: "p", runs: [own] })).toEqual([]);
  });
});
