// The goroutine model's answers to "why is it stuck" on hand-built runs whose records and
// lock operations spell out each class: an AB-BA hang (a cycle with the lock holders), a
// WaitGroup whose only worker exited (partner gone), -test.count repetitions (one bug), an
// inversion that never hung and a recursive read lock with a late writer (potential
// deadlocks), and the same inversion under a common guard (none).

import { describe, expect, test } from "vitest";
import { explainProgram, groupBugs, judgeProgram, predictDeadlocks, preciseWait } from "../../src/model/index.js";
import type { GoroutineInfo } from "../../src/core/index.js";
import { foldedRun as run, type Step } from "../helpers/folded-run.js";

const PKG = "example.com/m/bank";

function goroutine(gid: number, root: string, func: string, line: number, ordinal = 0): GoroutineInfo {
  return {
    goroutine: gid,
    canonicalId: `${root}/${PKG}.${func}@bank_test.go:${line}#${ordinal}`,
    parent: 1,
    entry: `${PKG}.${func}`,
    creationSite: `${PKG}.${root} bank_test.go:${line}`,
    isRoot: false,
  };
}

function testRoot(gid: number, name: string): GoroutineInfo {
  return { goroutine: gid, canonicalId: name, parent: null, entry: `${PKG}.${name}`, creationSite: null, isRoot: true };
}

const site = (func: string, line: number): string => `${PKG}.${func} bank_test.go:${line}`;
const lockStack = (func: string, line: number): string =>
  `sync.(*Mutex).Lock;${site(func, line)};${PKG}.TestTransfer bank_test.go:40`;

describe("why it is stuck", () => {
  const root = testRoot(1, "TestTransfer");
  const a = goroutine(2, "TestTransfer", "TestTransfer.func1", 12);
  const b = goroutine(3, "TestTransfer", "TestTransfer.func2", 22);
  const abba: Step[] = [
    { kind: "GoStart", g: 1 },
    { kind: "GoCreate", g: 2 },
    { kind: "GoCreate", g: 3 },
    { kind: "GoStart", g: 2 },
    { op: "want", g: 2, lock: "a1", site: site("TestTransfer.func1", 13) },
    { op: "got", g: 2, lock: "a1", site: site("TestTransfer.func1", 13) },
    { kind: "GoStart", g: 3 },
    { op: "want", g: 3, lock: "b2", site: site("TestTransfer.func2", 23) },
    { op: "got", g: 3, lock: "b2", site: site("TestTransfer.func2", 23) },
    { op: "want", g: 2, lock: "b2", site: site("TestTransfer.func1", 15) },
    {
      kind: "GoBlock",
      g: 2,
      reason: "sync",
      site: site("TestTransfer.func1", 15),
      stack: lockStack("TestTransfer.func1", 15),
    },
    { op: "want", g: 3, lock: "a1", site: site("TestTransfer.func2", 25) },
    {
      kind: "GoBlock",
      g: 3,
      reason: "sync",
      site: site("TestTransfer.func2", 25),
      stack: lockStack("TestTransfer.func2", 25),
    },
    {
      kind: "GoBlock",
      g: 1,
      reason: "sync",
      site: `${PKG}.TestTransfer bank_test.go:40`,
      stack: `sync.(*WaitGroup).Wait;${PKG}.TestTransfer bank_test.go:40`,
    },
  ];

  test("an AB-BA hang is one proven bug: a cycle of the two lockers, each lock's holder and where it took it", () => {
    const program = { program: "bank", runs: [run(1, [root, a, b], abba, "timeout")] };
    const judgements = judgeProgram(program);
    const explanations = explainProgram(
      program,
      judgements.map((j) => j.goroutine),
    );
    const first = explanations.get(a.canonicalId);
    expect(first?.wait).toBe("Mutex.Lock");
    expect(first?.stack[0]).toBe(site("TestTransfer.func1", 15));
    expect(first?.waitsFor).toEqual([
      expect.objectContaining({
        goroutine: b.canonicalId,
        basis: "holds-lock",
        state: "blocked",
        tookLockAt: site("TestTransfer.func2", 23),
      }),
    ]);
    expect(first?.cycle?.map((s) => s.goroutine)).toEqual([a.canonicalId, b.canonicalId]);
    expect(first?.text).toBe(
      "bank.TestTransfer.func1 waits at bank_test.go:15 (Mutex.Lock, " +
        "called at bank_test.go:40) for bank.TestTransfer.func2, which waits at bank_test.go:25 (Mutex.Lock, " +
        "called at bank_test.go:40) for bank.TestTransfer.func1: " +
        "a cycle of blocked goroutines, so none of them can ever be woken. bank.TestTransfer.func2 took that lock at bank_test.go:23.",
    );
    const bugs = groupBugs(program, judgements, explanations);
    expect(bugs).toHaveLength(1);
    expect(bugs[0]).toMatchObject({
      kind: "deadlock",
      verdict: "proven",
      owner: "TestTransfer",
      goroutines: [root.canonicalId, a.canonicalId, b.canonicalId].sort(),
    });
    expect(bugs[0].fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  test("the fingerprint ignores goroutine numbers, lines and -test.count repetitions: a repeated bug is one bug", () => {
    const once = { program: "bank", runs: [run(1, [root, a, b], abba, "timeout")] };
    const root2 = testRoot(11, "TestTransfer#1");
    const a2 = { ...goroutine(12, "TestTransfer#1", "TestTransfer.func1", 12), goroutine: 12 };
    const b2 = { ...goroutine(13, "TestTransfer#1", "TestTransfer.func2", 22), goroutine: 13 };
    const shifted = abba.map((s) => ({ ...s, g: s.g + 10 }));
    const twice = { program: "bank", runs: [run(2, [root, a, b, root2, a2, b2], [...abba, ...shifted], "timeout")] };
    const bugsOf = (p: typeof once) => {
      const j = judgeProgram(p);
      return groupBugs(
        p,
        j,
        explainProgram(
          p,
          j.map((x) => x.goroutine),
        ),
      );
    };
    const repeated = bugsOf(twice);
    expect(repeated).toHaveLength(1);
    expect(repeated[0].goroutines).toHaveLength(6);
    expect(repeated[0].fingerprint).toBe(bugsOf(once)[0].fingerprint);
  });

  test("a WaitGroup whose only worker exited: the worker had ended, nothing is left to wake it", () => {
    const waiter = goroutine(2, "TestDrain", "TestDrain.func1", 30);
    const worker = goroutine(3, "TestDrain", "TestDrain.func1.1", 33);
    const drainRoot = testRoot(1, "TestDrain");
    const steps: Step[] = [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoStart", g: 2 },
      { kind: "GoCreate", g: 3 },
      {
        kind: "GoBlock",
        g: 2,
        reason: "sync",
        site: site("TestDrain.func1", 36),
        stack: `sync.(*WaitGroup).Wait;${site("TestDrain.func1", 36)}`,
      },
      { kind: "GoStart", g: 3 },
      { kind: "GoEnd", g: 3 },
      { kind: "GoEnd", g: 1 },
    ];
    const program = { program: "drain", runs: [run(1, [drainRoot, waiter, worker], steps)] };
    const judgements = judgeProgram(program);
    const e = explainProgram(
      program,
      judgements.map((j) => j.goroutine),
    ).get(waiter.canonicalId);
    expect(e?.wait).toBe("WaitGroup.Wait");
    expect(e?.partnerGone).toBe(true);
    expect(e?.text).toBe(
      "bank.TestDrain.func1 waits at bank_test.go:36 in WaitGroup.Wait. The only run does not show who could " +
        "wake it, and every other goroutine of its owner had ended or waits in the same operation: " +
        "nothing is left to wake it. One run shows one schedule: more runs (--runs) can show whether another " +
        "one wakes it.",
    );
    const bugs = groupBugs(
      program,
      judgements,
      explainProgram(
        program,
        judgements.map((j) => j.goroutine),
      ),
    );
    expect(bugs.map((b) => [b.kind, b.verdict])).toEqual([["leak", "likely"]]);
  });

  test("a waker seen in another run names the partner, and its state in the run explained", () => {
    const recv = goroutine(2, "TestFetch", "TestFetch.func1", 50);
    const fetchRoot = testRoot(1, "TestFetch");
    const at = site("TestFetch.func1", 52);
    const woken: Step[] = [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoStart", g: 2 },
      { kind: "GoBlock", g: 2, reason: "chan receive", site: at, stack: `runtime.chanrecv1;${at}` },
      { kind: "GoUnblock", g: 2, actor: 1 },
      { kind: "GoStart", g: 2 },
      { kind: "GoEnd", g: 2 },
      { kind: "GoEnd", g: 1 },
    ];
    const stuck: Step[] = [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoStart", g: 2 },
      { kind: "GoBlock", g: 2, reason: "chan receive", site: at, stack: `runtime.chanrecv1;${at}` },
      { kind: "GoEnd", g: 1 },
    ];
    const program = { program: "fetch", runs: [run(1, [fetchRoot, recv], woken), run(2, [fetchRoot, recv], stuck)] };
    const e = explainProgram(program, [recv.canonicalId]).get(recv.canonicalId);
    expect(e?.waitsFor).toEqual([
      expect.objectContaining({ goroutine: "TestFetch", basis: "woke-before", state: "ended" }),
    ]);
    expect(e?.partnerGone).toBe(true);
    expect(e?.text).toBe(
      "bank.TestFetch.func1 waits at bank_test.go:52 in chan receive. In the 2 runs, it was woken there by " +
        "TestFetch, which had ended. Nothing is left to wake it.",
    );
  });
});

describe("lock-order prediction", () => {
  const root = testRoot(1, "TestOrder");
  const g1 = goroutine(2, "TestOrder", "TestOrder.func1", 10);
  const g2 = goroutine(3, "TestOrder", "TestOrder.func2", 20);
  const take = (g: number, lock: string, line: number, mode: "w" | "r" = "w"): Step[] => {
    const s = site(g === 2 ? "TestOrder.func1" : "TestOrder.func2", line);
    return [
      { op: "want", g, lock, site: s, mode },
      { op: "got", g, lock, site: s, mode },
    ];
  };
  const drop = (g: number, lock: string, mode: "w" | "r" = "w"): Step => ({
    op: "drop",
    g,
    lock,
    site: site("x", 0),
    mode,
  });
  const finish: Step[] = [
    { kind: "GoEnd", g: 2 },
    { kind: "GoEnd", g: 3 },
    { kind: "GoEnd", g: 1 },
  ];

  test("an inversion sequenced so it never hangs is one potential deadlock naming both orders", () => {
    const steps: Step[] = [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoCreate", g: 3 },
      ...take(2, "A", 11),
      ...take(2, "B", 12),
      drop(2, "B"),
      drop(2, "A"),
      ...take(3, "B", 21),
      ...take(3, "A", 22),
      drop(3, "A"),
      drop(3, "B"),
      ...finish,
    ];
    const program = { program: "order", runs: [run(1, [root, g1, g2], steps), run(2, [root, g1, g2], steps)] };
    const found = predictDeadlocks(program);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ pattern: "lock-order", owner: "TestOrder", runIds: [1, 2] });
    expect(found[0].steps.map((s) => [s.heldAt, s.takenAt])).toEqual(
      expect.arrayContaining([
        [site("TestOrder.func1", 11), site("TestOrder.func1", 12)],
        [site("TestOrder.func2", 21), site("TestOrder.func2", 22)],
      ]),
    );
    expect(found[0].why).toContain("opposite orders");
  });

  test("the same inversion under a common guard, and one order taken everywhere, predict nothing", () => {
    const guarded: Step[] = [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoCreate", g: 3 },
      ...take(2, "G", 10),
      ...take(2, "A", 11),
      ...take(2, "B", 12),
      drop(2, "B"),
      drop(2, "A"),
      drop(2, "G"),
      ...take(3, "G", 20),
      ...take(3, "B", 21),
      ...take(3, "A", 22),
      drop(3, "A"),
      drop(3, "B"),
      drop(3, "G"),
      ...finish,
    ];
    const ordered: Step[] = [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoCreate", g: 3 },
      ...take(2, "A", 11),
      ...take(2, "B", 12),
      drop(2, "B"),
      drop(2, "A"),
      ...take(3, "A", 21),
      ...take(3, "B", 22),
      drop(3, "B"),
      drop(3, "A"),
      ...finish,
    ];
    expect(predictDeadlocks({ program: "guarded", runs: [run(1, [root, g1, g2], guarded)] })).toEqual([]);
    expect(predictDeadlocks({ program: "ordered", runs: [run(1, [root, g1, g2], ordered)] })).toEqual([]);
  });

  test("a read lock taken again while a writer of the same lock exists is a potential deadlock; without a writer it is not", () => {
    const recursive: Step[] = [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoCreate", g: 3 },
      ...take(2, "L", 11, "r"),
      ...take(2, "L", 14, "r"),
      drop(2, "L", "r"),
      drop(2, "L", "r"),
    ];
    const writer: Step[] = [...take(3, "L", 21), drop(3, "L")];
    const withWriter = predictDeadlocks({
      program: "rw",
      runs: [run(1, [root, g1, g2], [...recursive, ...writer, ...finish])],
    });
    expect(withWriter).toHaveLength(1);
    expect(withWriter[0]).toMatchObject({ pattern: "recursive-read", writerAt: site("TestOrder.func2", 21) });
    expect(predictDeadlocks({ program: "rw", runs: [run(1, [root, g1, g2], [...recursive, ...finish])] })).toEqual([]);
  });

  test("an inversion that hung in some run is left to the deadlock finding, even where another run passed", () => {
    const hung: Step[] = [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoCreate", g: 3 },
      ...take(2, "A", 11),
      ...take(3, "B", 21),
      { op: "want", g: 2, lock: "B", site: site("TestOrder.func1", 12) },
      { kind: "GoBlock", g: 2, reason: "sync", site: site("TestOrder.func1", 12) },
      { op: "want", g: 3, lock: "A", site: site("TestOrder.func2", 22) },
      { kind: "GoBlock", g: 3, reason: "sync", site: site("TestOrder.func2", 22) },
    ];
    expect(predictDeadlocks({ program: "hang", runs: [run(1, [root, g1, g2], hung, "timeout")] })).toEqual([]);
    const passed: Step[] = [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoCreate", g: 3 },
      ...take(2, "A", 11),
      { op: "want", g: 2, lock: "B", site: site("TestOrder.func1", 12) },
      { op: "got", g: 2, lock: "B", site: site("TestOrder.func1", 12) },
      drop(2, "B"),
      drop(2, "A"),
      ...take(3, "B", 21),
      { op: "want", g: 3, lock: "A", site: site("TestOrder.func2", 22) },
      { op: "got", g: 3, lock: "A", site: site("TestOrder.func2", 22) },
      drop(3, "A"),
      drop(3, "B"),
      ...finish,
    ];
    expect(predictDeadlocks({ program: "hang", runs: [run(2, [root, g1, g2], passed)] })).toHaveLength(1);
    expect(
      predictDeadlocks({
        program: "hang",
        runs: [run(2, [root, g1, g2], passed), run(1, [root, g1, g2], hung, "timeout")],
      }),
    ).toEqual([]);
  });
});

describe("precise waits", () => {
  test("the library call names sync waits; the reason names channel waits and nil channels", () => {
    expect(preciseWait("sync", "sync.(*RWMutex).RLock")).toBe("RWMutex.RLock");
    expect(preciseWait("sync", "sync.(*RWMutex).Lock")).toBe("RWMutex.Lock");
    expect(preciseWait("sync", "sync.(*WaitGroup).Wait")).toBe("WaitGroup.Wait");
    expect(preciseWait("sync.(*Cond).Wait", "sync.(*Cond).Wait")).toBe("Cond.Wait");
    expect(preciseWait("chan send", "runtime.chansend1")).toBe("chan send");
    expect(preciseWait("forever", "runtime.chanrecv1")).toBe("nil chan receive");
    expect(preciseWait("forever", "runtime.block")).toBe("select {}");
    expect(preciseWait("sync", "")).toBe("sync");
  });
});
