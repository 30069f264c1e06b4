// Feasible events from the replayed state, and the cap on the others that keeps a greedy
// rollout valid.

import { describe, expect, it } from "vitest";
import { applyRecord, newSchedulerTracker } from "../../../src/core/scheduler-state.js";
import { capInfeasible, topFeasible, writeFeasibleEvents } from "../../../src/predict/student/feasibility.js";
import type { GoroutineRecord, RecordKind } from "../../../src/core/index.js";

const rec = (seq: number, kind: RecordKind, goroutine: number, reason = ""): GoroutineRecord => ({
  seq,
  timeNs: seq,
  kind,
  goroutine,
  actor: null,
  reason,
  site: null,
});

describe("feasible events", () => {
  it("follows the state machine: start needs a runnable goroutine and a free P, unblock a waiting one", () => {
    const t = newSchedulerTracker();
    const flags = new Uint8Array(6);
    writeFeasibleEvents(t, 1, flags, 0);
    expect(Array.from(flags)).toEqual([0, 0, 0, 0, 0, 0]); // nothing known: nothing can happen
    for (const r of [rec(0, "Initial", 1, "Running"), rec(1, "GoCreate", 2), rec(2, "GoCreate", 3)]) applyRecord(t, r);
    writeFeasibleEvents(t, 1, flags, 0); // g1 runs on the only P; g2, g3 runnable
    expect(Array.from(flags)).toEqual([1, 0, 1, 0, 1, 1]); // GoCreate GoStart GoBlock GoUnblock GoSched GoEnd
    writeFeasibleEvents(t, 2, flags, 0); // a second P is free
    expect(flags[1]).toBe(1);
    applyRecord(t, rec(3, "GoBlock", 1, "chan receive"));
    writeFeasibleEvents(t, 1, flags, 0); // nothing runs; g1 waits
    expect(Array.from(flags)).toEqual([0, 1, 0, 1, 0, 0]);
  });

  it("caps the infeasible mass and keeps the most probable event feasible", () => {
    const q = Float64Array.from([0.5, 0.1, 0.1, 0.2, 0.05, 0.05]);
    const feasible = Uint8Array.from([0, 1, 1, 1, 1, 1]);
    capInfeasible(q, 0, feasible, 0, 0.15);
    expect(q[0]).toBeCloseTo(0.15, 12);
    expect(q.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(q[3] / q[1]).toBeCloseTo(2, 12); // feasible ones keep their ratios
    expect(q.indexOf(Math.max(...q))).toBe(3);
    const small = Float64Array.from([0.05, 0.3, 0.3, 0.15, 0.1, 0.1]);
    capInfeasible(small, 0, feasible, 0, 0.15);
    expect(Array.from(small)).toEqual([0.05, 0.3, 0.3, 0.15, 0.1, 0.1]); // under the cap: unchanged
    const none = Float64Array.from([1, 0, 0, 0, 0, 0]);
    capInfeasible(none, 0, feasible, 0, 0.1);
    expect(none[0]).toBeCloseTo(0.1, 12);
    expect(none[1]).toBeCloseTo(0.18, 12); // the rest spread evenly over the five feasible events
  });
});

describe("top feasible", () => {
  it("changes only a vector whose top event is infeasible, keeping every other ratio", () => {
    const feasible = Uint8Array.from([1, 1, 1, 0, 1, 1]); // GoUnblock impossible
    const q = Float64Array.from([0.05, 0.2, 0.1, 0.5, 0.1, 0.05]);
    topFeasible(q, 0, feasible, 0, 0.9);
    expect(q.indexOf(Math.max(...q))).toBe(1);
    expect(q[3] / q[1]).toBeCloseTo(0.9, 12);
    expect(q[2] / q[1]).toBeCloseTo(0.5, 12);
    expect(q.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    const fine = Float64Array.from([0.05, 0.4, 0.1, 0.3, 0.1, 0.05]);
    topFeasible(fine, 0, feasible, 0, 0.9);
    expect(Array.from(fine)).toEqual([0.05, 0.4, 0.1, 0.3, 0.1, 0.05]);
    const tie = Float64Array.from([0, 0, 0, 0.5, 0.5, 0]);
    topFeasible(tie, 0, Uint8Array.from([1, 1, 1, 0, 1, 1]), 0, 0.9);
    expect(tie[4]).toBeGreaterThan(tie[3]);
  });
});
