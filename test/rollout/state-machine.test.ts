// The goroutine state machine, exhaustively: every record kind from every goroutine status,
// the GOMAXPROCS rule, creation rules, Initial restatements, replay and the choice rule.

import { describe, expect, it } from "vitest";
import type { GoroutineStatus } from "../../src/core/scheduler-state.js";
import {
  applyTransition,
  chooseTransition,
  judgeEvent,
  newGoroutineMachine,
  replayRecords,
  validateTransition,
} from "../../src/rollout/index.js";
import type { GoroutineMachine, TransitionRule } from "../../src/rollout/index.js";
import { RECORD_KINDS, type GoroutineRecord, type RecordKind } from "../../src/core/index.js";

let seq = 0;
function rec(kind: RecordKind, goroutine: number, actor: number | null = null, reason = ""): GoroutineRecord {
  seq++;
  return { seq, timeNs: seq, kind, goroutine, actor, reason, site: null };
}

/** A machine (GOMAXPROCS 4) holding G1 running and G2 in the given status (or G2 unknown). */
function machineWithG2(status: GoroutineStatus | "unknown"): GoroutineMachine {
  const m = newGoroutineMachine(4);
  applyTransition(m, rec("Initial", 1, null, "Running"));
  if (status === "unknown") return m;
  applyTransition(m, rec("GoCreate", 2, 1));
  const path: Record<GoroutineStatus, RecordKind[]> = {
    runnable: [],
    running: ["GoStart"],
    waiting: ["GoStart", "GoBlock"],
    syscall: ["GoStart", "SyscallEnter"],
    ended: ["GoStart", "GoEnd"],
  };
  for (const kind of path[status]) applyTransition(m, rec(kind, 2, 2, kind === "GoBlock" ? "chan receive" : ""));
  return m;
}

// Expected verdict of each record kind applied to G2 in each status: true = valid, else the rule.
const TABLE: Record<GoroutineStatus | "unknown", Record<RecordKind, true | TransitionRule>> = {
  unknown: {
    GoCreate: true,
    GoStart: "unknown-goroutine",
    GoBlock: "unknown-goroutine",
    GoUnblock: "unknown-goroutine",
    GoSched: "unknown-goroutine",
    GoEnd: "unknown-goroutine",
    SyscallEnter: "unknown-goroutine",
    SyscallExit: "unknown-goroutine",
    SyscallUnblock: "unknown-goroutine",
    Initial: true,
  },
  runnable: {
    GoCreate: "create-existing",
    GoStart: true,
    GoBlock: "block-not-running",
    GoUnblock: "unblock-not-waiting",
    GoSched: "sched-not-running",
    GoEnd: "end-not-running",
    SyscallEnter: "syscall-enter-not-running",
    SyscallExit: "syscall-exit-not-in-syscall",
    SyscallUnblock: "syscall-unblock-not-in-syscall",
    Initial: "initial-conflict",
  },
  running: {
    GoCreate: "create-existing",
    GoStart: "start-not-runnable",
    GoBlock: true,
    GoUnblock: "unblock-not-waiting",
    GoSched: true,
    GoEnd: true,
    SyscallEnter: true,
    SyscallExit: "syscall-exit-not-in-syscall",
    SyscallUnblock: "syscall-unblock-not-in-syscall",
    Initial: "initial-conflict",
  },
  waiting: {
    GoCreate: "create-existing",
    GoStart: "start-not-runnable",
    GoBlock: "block-not-running",
    GoUnblock: true,
    GoSched: "sched-not-running",
    GoEnd: "end-not-running",
    SyscallEnter: "syscall-enter-not-running",
    SyscallExit: "syscall-exit-not-in-syscall",
    SyscallUnblock: "syscall-unblock-not-in-syscall",
    Initial: "initial-conflict",
  },
  syscall: {
    GoCreate: "create-existing",
    GoStart: "start-not-runnable",
    GoBlock: "block-not-running",
    GoUnblock: "unblock-not-waiting",
    GoSched: "sched-not-running",
    GoEnd: true,
    SyscallEnter: "syscall-enter-not-running",
    SyscallExit: true,
    SyscallUnblock: true,
    Initial: "initial-conflict",
  },
  ended: {
    GoCreate: "ended-goroutine",
    GoStart: "ended-goroutine",
    GoBlock: "ended-goroutine",
    GoUnblock: "ended-goroutine",
    GoSched: "ended-goroutine",
    GoEnd: "ended-goroutine",
    SyscallEnter: "ended-goroutine",
    SyscallExit: "ended-goroutine",
    SyscallUnblock: "ended-goroutine",
    Initial: "initial-conflict",
  },
};

describe("validateTransition: every record kind from every status", () => {
  for (const status of Object.keys(TABLE) as (GoroutineStatus | "unknown")[]) {
    for (const kind of RECORD_KINDS) {
      const expected = TABLE[status][kind];
      it(`${kind} of a ${status} goroutine → ${expected === true ? "valid" : expected}`, () => {
        const m = machineWithG2(status);
        // Initial restates "Runnable": valid only for an unknown or runnable goroutine.
        const verdict = validateTransition(m, {
          kind,
          goroutine: 2,
          actor: 1,
          reason: kind === "Initial" ? "Runnable" : "",
        });
        if (status === "runnable" && kind === "Initial") {
          expect(verdict).toEqual({ valid: true });
          return;
        }
        if (expected === true) expect(verdict).toEqual({ valid: true });
        else expect(verdict.valid === false ? verdict.rule : "valid").toBe(expected);
      });
    }
  }
});

describe("processor and creation rules", () => {
  it("GoStart and SyscallExit need a free processor: at most GOMAXPROCS goroutines run", () => {
    const m = newGoroutineMachine(2);
    for (const g of [1, 2]) applyTransition(m, rec("Initial", g, null, "Running"));
    applyTransition(m, rec("GoCreate", 3, 1));
    expect(validateTransition(m, { kind: "GoStart", goroutine: 3, actor: null })).toMatchObject({
      valid: false,
      rule: "gomaxprocs-exceeded",
    });
    applyTransition(m, rec("SyscallEnter", 2));
    expect(validateTransition(m, { kind: "GoStart", goroutine: 3, actor: null })).toEqual({ valid: true });
    applyTransition(m, rec("GoStart", 3));
    expect(validateTransition(m, { kind: "SyscallExit", goroutine: 2, actor: 2 })).toMatchObject({
      valid: false,
      rule: "gomaxprocs-exceeded",
    });
    // A syscall may still end the goroutine or hand it back to the run queue without a processor.
    expect(validateTransition(m, { kind: "SyscallUnblock", goroutine: 2, actor: null })).toEqual({ valid: true });
    expect(validateTransition(m, { kind: "GoEnd", goroutine: 2, actor: 2 })).toEqual({ valid: true });
  });

  it("GOMAXPROCS 0 (unknown) does not limit running goroutines", () => {
    const m = newGoroutineMachine(0);
    for (const g of [1, 2, 3]) applyTransition(m, rec("Initial", g, null, "Running"));
    applyTransition(m, rec("GoCreate", 4, 1));
    expect(validateTransition(m, { kind: "GoStart", goroutine: 4, actor: null })).toEqual({ valid: true });
  });

  it("a known creator must be running; the runtime (null) or a non-user actor is not checked", () => {
    const m = newGoroutineMachine(4);
    applyTransition(m, rec("Initial", 1, null, "Running"));
    applyTransition(m, rec("GoCreate", 2, 1));
    expect(validateTransition(m, { kind: "GoCreate", goroutine: 3, actor: 2 })).toMatchObject({
      valid: false,
      rule: "create-actor-not-running",
    });
    expect(validateTransition(m, { kind: "GoCreate", goroutine: 3, actor: 1 })).toEqual({ valid: true });
    expect(validateTransition(m, { kind: "GoCreate", goroutine: 3, actor: null })).toEqual({ valid: true });
    expect(validateTransition(m, { kind: "GoCreate", goroutine: 3, actor: 99 })).toEqual({ valid: true });
  });

  it("Initial restates a waiting goroutine with its reason and a running one by name", () => {
    const m = newGoroutineMachine(4);
    applyTransition(m, rec("Initial", 1, null, "Running"));
    applyTransition(m, rec("Initial", 2, null, "Waiting"));
    expect(
      validateTransition(m, { kind: "Initial", goroutine: 2, actor: null, reason: "waiting: chan receive" }),
    ).toEqual({ valid: true });
    expect(validateTransition(m, { kind: "Initial", goroutine: 1, actor: null, reason: "Running" })).toEqual({
      valid: true,
    });
    expect(validateTransition(m, { kind: "Initial", goroutine: 1, actor: null, reason: "Waiting" })).toMatchObject({
      valid: false,
      rule: "initial-conflict",
    });
  });
});

describe("replayRecords", () => {
  it("replays a valid stream without violations and ends in the trace's state", () => {
    const stream = [
      rec("Initial", 1, null, "Running"),
      rec("GoCreate", 2, 1),
      rec("GoCreate", 3, 1),
      rec("GoBlock", 1, 1, "chan receive"),
      rec("GoStart", 2),
      rec("GoUnblock", 1, 2),
      rec("GoEnd", 2, 2),
      rec("GoStart", 3),
    ];
    const { machine, violations } = replayRecords(stream, stream.length, 1);
    expect(violations).toEqual([]);
    expect([...machine.running.keys()]).toEqual([3]);
    expect([...machine.runnable.keys()]).toEqual([1]);
    expect(machine.waiting.size).toBe(0);
    expect(machine.maxGoroutine).toBe(3);
  });

  it("reports each broken rule with its index and still applies the record", () => {
    const stream = [
      rec("Initial", 1, null, "Running"),
      rec("GoUnblock", 1),
      rec("GoEnd", 1, 1),
      rec("GoStart", 1),
      rec("GoStart", 7),
    ];
    const { violations, machine } = replayRecords(stream, stream.length, 4);
    expect(violations.map((v) => [v.index, v.verdict.rule])).toEqual([
      [1, "unblock-not-waiting"],
      // the invalid GoUnblock was applied: G1 is runnable now, so it cannot end
      [2, "end-not-running"],
      [3, "ended-goroutine"],
      [4, "unknown-goroutine"],
    ]);
    expect([...machine.running.keys()].sort()).toEqual([1, 7]);
  });

  it("replays only records[0 .. end)", () => {
    const stream = [rec("Initial", 1, null, "Running"), rec("GoBlock", 1, 1, "sleep"), rec("GoBlock", 1, 1, "sleep")];
    expect(replayRecords(stream, 2, 1).violations).toEqual([]);
    expect(replayRecords(stream, 3, 1).violations).toHaveLength(1);
  });
});

describe("the goroutine-choice rule", () => {
  /** G1 running; G2, G3 created (runnable in that order); G4 and G5 blocked in that order. */
  function scene(): GoroutineMachine {
    const stream = [
      rec("Initial", 1, null, "Running"),
      rec("GoCreate", 4, 1),
      rec("GoCreate", 5, 1),
      rec("GoCreate", 2, 1),
      rec("GoCreate", 3, 1),
    ];
    const { machine } = replayRecords(stream, stream.length, 2);
    for (const g of [4, 5]) {
      applyTransition(machine, rec("GoStart", g));
      applyTransition(machine, rec("GoBlock", g, g, "select"));
    }
    return machine;
  }

  it("GoStart picks the longest-runnable goroutine (FIFO)", () => {
    const m = scene();
    expect(chooseTransition(m, "GoStart")).toEqual({ kind: "GoStart", goroutine: 2, actor: null });
    applyTransition(m, rec("GoStart", 2));
    applyTransition(m, rec("GoSched", 2, 2, "preempted"));
    expect(chooseTransition(m, "GoStart")?.goroutine).toBe(3);
  });

  it("GoBlock, GoSched and GoEnd pick the most recently started running goroutine", () => {
    const m = scene();
    applyTransition(m, rec("GoStart", 3));
    for (const event of ["GoBlock", "GoSched", "GoEnd"] as const)
      expect(chooseTransition(m, event)).toEqual({ kind: event, goroutine: 3, actor: 3 });
  });

  it("GoUnblock picks the longest-waiting goroutine, woken by the current running one", () => {
    expect(chooseTransition(scene(), "GoUnblock")).toEqual({ kind: "GoUnblock", goroutine: 4, actor: 1 });
  });

  it("GoCreate makes a fresh id with the current running goroutine as creator", () => {
    expect(chooseTransition(scene(), "GoCreate")).toEqual({ kind: "GoCreate", goroutine: 6, actor: 1 });
  });

  it("an event type with no eligible goroutine is invalid, and so is one the rules reject", () => {
    const m = newGoroutineMachine(1);
    applyTransition(m, rec("Initial", 1, null, "Running"));
    expect(judgeEvent(m, "GoUnblock").verdict).toMatchObject({ valid: false, rule: "unblock-not-waiting" });
    expect(judgeEvent(m, "GoStart").verdict).toMatchObject({ valid: false, rule: "start-not-runnable" });
    applyTransition(m, rec("GoCreate", 2, 1));
    // G2 is runnable but the only processor is taken.
    expect(judgeEvent(m, "GoStart").verdict).toMatchObject({ valid: false, rule: "gomaxprocs-exceeded" });
    applyTransition(m, rec("GoEnd", 1, 1));
    expect(judgeEvent(m, "GoCreate").verdict).toMatchObject({ valid: false, rule: "create-actor-not-running" });
    expect(judgeEvent(m, "GoBlock").verdict).toMatchObject({ valid: false, rule: "block-not-running" });
    expect(judgeEvent(m, "GoStart").verdict).toEqual({ valid: true });
  });
});
