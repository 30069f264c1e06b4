// The end-state codec of --store summary on runs folded from hand-built records and lock
// operations: decode(encode(states)) is the fold's result in every field and order (a
// lock-order edge with a guard, a recursive read, a holder and a waiter, wakes by a user
// goroutine, a timer and the runtime, a final block with and without stack), a run without
// lock operations decodes to no locks, goroutines are written as gids (the ids' text is
// not repeated), and a summary naming a goroutine the run does not have is refused.

import { describe, expect, it } from "vitest";
import {
  decodeEndStates,
  encodeEndStates,
  EndStateFormatError,
  NO_LOCKS,
  runStateFold,
  type LeakRun,
  type RunGoroutineStates,
} from "../../src/model/index.js";
import type { GoroutineInfo, GoroutineRecord, LockOp, RecordKind } from "../../src/core/index.js";

const PKG = "example.com/m/store";
const site = (line: number): string => `${PKG}.worker store.go:${line}`;

function goroutine(gid: number, canonicalId: string): GoroutineInfo {
  return {
    goroutine: gid,
    canonicalId,
    parent: gid === 1 ? null : 1,
    entry: `${PKG}.worker`,
    creationSite: gid === 1 ? null : site(3),
    isRoot: gid === 1,
  };
}

const GOROUTINES = [
  goroutine(1, "TestStore"),
  goroutine(4, `TestStore/${PKG}.worker@store.go:3#0`),
  goroutine(5, `TestStore/${PKG}.worker@store.go:3#1`),
  goroutine(9, `TestStore/${PKG}.worker@store.go:3#2`),
];

type Step =
  | {
      readonly kind: RecordKind;
      readonly g: number;
      readonly reason?: string;
      readonly site?: string | null;
      readonly stack?: string | null;
      readonly actor?: number | null;
    }
  | {
      readonly op: LockOp["phase"];
      readonly g: number;
      readonly mode?: LockOp["mode"];
      readonly lock: string;
      readonly line: number;
    };

function fold(steps: readonly Step[], outcome: LeakRun["outcome"] = "ok"): RunGoroutineStates {
  const run: LeakRun = {
    runId: 1,
    runIndex: 0,
    config: "procs-2",
    outcome,
    runtimeDeadlock: false,
    crashed: false,
    wallMs: 12.5,
    goroutines: GOROUTINES,
  };
  const states = runStateFold(run);
  let seq = 0;
  steps.forEach((step, i) => {
    const timeNs = 1_000 * (i + 1);
    if ("op" in step) {
      states.addLockOp({
        seq,
        timeNs,
        goroutine: step.g,
        phase: step.op,
        mode: step.mode ?? "w",
        lock: step.lock,
        site: site(step.line),
        stack: `;${site(step.line)}`,
      });
      return;
    }
    const record: GoroutineRecord = {
      seq: seq++,
      timeNs,
      kind: step.kind,
      goroutine: step.g,
      actor: step.actor ?? (step.kind === "GoUnblock" ? null : step.g),
      reason: step.reason ?? "",
      site: step.site ?? null,
      stack: step.kind === "GoBlock" ? (step.stack ?? null) : undefined,
    };
    states.add(record);
  });
  return states.finish();
}

/** Every Map and Set as its entries, in order: equal text means equal content in the same order. */
function inOrder(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v instanceof Map ? { map: [...v] } : v instanceof Set ? { set: [...v] } : v,
  );
}

const STEPS: Step[] = [
  { kind: "GoStart", g: 1 },
  { kind: "GoCreate", g: 4, actor: 1, site: site(3) },
  { kind: "GoCreate", g: 5, actor: 1, site: site(3) },
  { kind: "GoCreate", g: 9, actor: 1, site: site(3) },
  { kind: "GoStart", g: 4 },
  { op: "want", g: 4, lock: "0xc000010", line: 10 },
  { op: "got", g: 4, lock: "0xc000010", line: 10 },
  { op: "want", g: 4, lock: "0xc000020", line: 11 },
  { op: "got", g: 4, lock: "0xc000020", line: 11 },
  { op: "want", g: 4, lock: "0xc000030", line: 12 },
  { op: "got", g: 4, lock: "0xc000030", line: 12 },
  { op: "want", g: 4, mode: "r", lock: "0xc000040", line: 13 },
  { op: "got", g: 4, mode: "r", lock: "0xc000040", line: 13 },
  { op: "want", g: 4, mode: "r", lock: "0xc000040", line: 14 },
  { op: "got", g: 4, mode: "r", lock: "0xc000040", line: 14 },
  { kind: "GoBlock", g: 4, reason: "chan receive", site: site(20), stack: `runtime.chanrecv1;${site(20)}` },
  { kind: "GoUnblock", g: 4, actor: 5 },
  { kind: "GoStart", g: 4 },
  { kind: "GoBlock", g: 4, reason: "chan receive", site: site(20), stack: `runtime.chanrecv1;${site(20)}` },
  { kind: "GoUnblock", g: 4, actor: null },
  { kind: "GoStart", g: 4 },
  { kind: "GoBlock", g: 4, reason: "select", site: site(25), stack: `runtime.selectgo;${site(25)}` },
  { kind: "GoUnblock", g: 4, actor: 77 }, // a goroutine that is not the user's: the runtime
  { kind: "GoStart", g: 4 },
  { kind: "GoBlock", g: 4, reason: "chan receive", site: site(20), stack: `runtime.chanrecv1;${site(20)}` },
  { kind: "GoStart", g: 5 },
  { op: "want", g: 5, lock: "0xc000010", line: 30 },
  { kind: "GoBlock", g: 5, reason: "sync", site: site(30), stack: null },
  { kind: "GoStart", g: 9 },
  { kind: "GoBlock", g: 9, reason: "sleep", site: site(40) },
  { kind: "GoEnd", g: 1 },
];

describe("the end-state codec", () => {
  it("gives back the fold's states in every field and order, locks included", () => {
    const states = fold(STEPS);
    expect(states.finalBlocks.size).toBe(2);
    expect(states.locks.edges.length).toBeGreaterThan(0);
    expect(states.locks.recursiveReads).toHaveLength(1);
    expect(states.locks.wanting.size).toBe(1);
    expect([...(states.wakes.get(GOROUTINES[1].canonicalId)?.values() ?? [])].flatMap((t) => t.wakers)).toEqual([
      GOROUTINES[2].canonicalId,
      "(timer)",
      "(non-user)",
    ]);
    const decoded = decodeEndStates(encodeEndStates(states, GOROUTINES), GOROUTINES);
    expect(decoded).toEqual(states);
    expect(inOrder(decoded)).toBe(inOrder(states));
  });

  it("decodes a run without lock operations to no locks, and a cut run's aged blocks as they were", () => {
    const records = STEPS.filter((s) => !("op" in s));
    const states = fold(records, "timeout");
    expect(states.locks).toBe(NO_LOCKS);
    const decoded = decodeEndStates(encodeEndStates(states, GOROUTINES), GOROUTINES);
    expect(decoded.locks).toBe(NO_LOCKS);
    expect(decoded.cut).toBe(true);
    // The deadline cut the run at its wall time (12.5 ms): the last block is aged up to it.
    const lastBlock = Math.max(...records.map((s, i) => ("kind" in s && s.kind === "GoBlock" && s.g === 4 ? i : -1)));
    expect(decoded.finalBlocks.get(GOROUTINES[1].canonicalId)?.blockedNs).toBe(12.5e6 - 1_000 * (lastBlock + 1));
    expect(inOrder(decoded)).toBe(inOrder(states));
  });

  it("writes goroutines as gids and each text once", () => {
    const text = encodeEndStates(fold(STEPS), GOROUTINES);
    for (const g of GOROUTINES.slice(1)) expect(text).not.toContain(g.canonicalId);
    expect(text.split(`runtime.chanrecv1;${site(20)}`)).toHaveLength(2);
  });

  it("refuses a summary that names a goroutine the run does not list", () => {
    const text = encodeEndStates(fold(STEPS), GOROUTINES);
    expect(() =>
      decodeEndStates(
        text,
        GOROUTINES.filter((g) => g.goroutine !== 5),
      ),
    ).toThrow(EndStateFormatError);
    expect(() => encodeEndStates(fold(STEPS), GOROUTINES.slice(0, 2))).toThrow(/does not have/);
  });
});
