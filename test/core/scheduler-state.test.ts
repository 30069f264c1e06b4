import { describe, expect, it } from "vitest";
import {
  applyRecord,
  goroutineState,
  initialState,
  newSchedulerTracker,
  snapshotCounts,
  trackerAt,
} from "../../src/core/scheduler-state.js";
import { records } from "../dataset/records.js";

// main (g1) starts running, creates g2 and g3; g2 blocks on a channel, g3 runs and ends,
// g1 unblocks g2 and enters a syscall.
const stream = records([
  ["Initial", 1, "Running"],
  ["GoCreate", 2],
  ["GoCreate", 3],
  ["GoSched", 1, "runtime.Gosched"],
  ["GoStart", 2],
  ["GoBlock", 2, "chan receive", "main.worker main.go:12"],
  ["GoStart", 3],
  ["GoBlock", 3, "sync"],
  ["GoUnblock", 3],
  ["GoStart", 3],
  ["GoEnd", 3],
  ["GoStart", 1],
  ["GoUnblock", 2],
  ["SyscallEnter", 1],
]);

describe("scheduler-state tracker", () => {
  it("counts goroutines per state after each prefix", () => {
    const t = newSchedulerTracker();
    for (const r of stream.slice(0, 6)) applyRecord(t, r);
    expect(snapshotCounts(t)).toEqual({
      running: 0,
      runnable: 2,
      waiting: 1,
      waitingByReason: { "chan receive": 1 },
      syscall: 0,
      created: 2,
      ended: 0,
    });
    expect(goroutineState(t, 2)).toEqual({ status: "waiting", reason: "chan receive", steps: 3 });
  });

  it("tracks waits per reason and removes empty buckets", () => {
    const t = trackerAt(stream, 8);
    expect(snapshotCounts(t).waitingByReason).toEqual({ "chan receive": 1, sync: 1 });
    const after = trackerAt(stream, 9);
    expect(snapshotCounts(after).waitingByReason).toEqual({ "chan receive": 1 });
  });

  it("ends with the final state of every goroutine and keeps per-goroutine step counts", () => {
    const t = trackerAt(stream, stream.length);
    expect(snapshotCounts(t)).toEqual({
      running: 0,
      runnable: 1,
      waiting: 0,
      waitingByReason: {},
      syscall: 1,
      created: 2,
      ended: 1,
    });
    expect(goroutineState(t, 1)).toEqual({ status: "syscall", reason: "", steps: 2 });
    expect(goroutineState(t, 3)).toEqual({ status: "ended", reason: "", steps: 6 });
    expect(goroutineState(t, 99)).toBeUndefined();
  });

  it("keeps live = running + runnable + waiting + syscall at every step", () => {
    const t = newSchedulerTracker();
    const live = [1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2];
    stream.forEach((r, i) => {
      applyRecord(t, r);
      const c = snapshotCounts(t);
      expect(c.running + c.runnable + c.waiting + c.syscall).toBe(live[i]);
    });
  });

  it("parses Initial state names leniently", () => {
    expect(initialState("Waiting")).toEqual({ status: "waiting", reason: "" });
    expect(initialState("waiting: chan send")).toEqual({ status: "waiting", reason: "chan send" });
    expect(initialState("Waiting (select)")).toEqual({ status: "waiting", reason: "select" });
    expect(initialState("Syscall")).toEqual({ status: "syscall", reason: "" });
    expect(initialState("???")).toEqual({ status: "runnable", reason: "" });
  });
});

describe("scheduler-state tracker robustness", () => {
  it("keeps a goroutine's state on a record kind it does not know", () => {
    const t = trackerAt(stream, 6);
    const odd = { ...stream[0], kind: "GoFrobnicate" as never, goroutine: 2 };
    applyRecord(t, odd);
    expect(goroutineState(t, 2)).toEqual({ status: "waiting", reason: "chan receive", steps: 3 });
    expect(snapshotCounts(t).waiting).toBe(1);
  });
});
