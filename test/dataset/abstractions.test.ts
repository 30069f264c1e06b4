import { describe, expect, it } from "vitest";
import { contextKey, eventSequence, poolStates, splitIndex, statesFromRuns } from "../../src/dataset/abstractions.js";
import { stateId } from "../../src/dataset/state-id.js";
import type { RunRecords, State } from "../../src/dataset/types.js";
import { records, run1, run2 } from "./records.js";
import type { RecordSpec } from "./records.js";

// run1 and run2 (records.ts): two runs of one program, the same first events, a different order later.
const run = (program: string, runId: number, specs: RecordSpec[]): RunRecords => ({
  program,
  runId,
  procs: 2,
  records: records(specs),
});

const runs = [run("p", 2, run2), run("p", 1, run1)];
const byKey = (states: readonly State[]) => new Map(states.map((s) => [s.key, s]));

describe("abstractions", () => {
  it("depth: one state per global event index, counting each run's event there", () => {
    const { states, samples } = statesFromRuns(runs, "depth");
    expect(samples).toHaveLength(8);
    const s = byKey(states);
    expect([...s.keys()]).toEqual(["depth=0", "depth=1", "depth=2", "depth=3"]);
    expect(s.get("depth=0")!.counts.GoCreate).toBe(2);
    expect(s.get("depth=1")!.counts).toEqual({
      GoCreate: 0,
      GoStart: 1,
      GoBlock: 1,
      GoUnblock: 0,
      GoSched: 0,
      GoEnd: 0,
    });
    expect(s.get("depth=1")!.runs).toBe(2);
    // The representative is the lowest run id; end indexes the full record array.
    expect(s.get("depth=1")!.representative.runId).toBe(1);
    expect(s.get("depth=1")!.representative.end).toBe(2);
    expect(s.get("depth=1")!.id).toBe(stateId("depth", "p", "depth=1"));
  });

  it("split: samples at 25/50/75 % of each run's event sequence", () => {
    expect(eventSequence(records(run2))).toEqual([1, 2, 5, 6]);
    expect([25, 50, 75].map((p) => splitIndex(4, p))).toEqual([1, 2, 3]);
    expect(splitIndex(1, 75)).toBe(0);
    const { states, samples } = statesFromRuns(runs, "split");
    expect(samples).toHaveLength(6);
    const s = byKey(states);
    expect(s.get("split=25")!.counts.GoStart + s.get("split=25")!.counts.GoBlock).toBe(2);
    expect(s.get("split=50")!.counts).toEqual({
      GoCreate: 0,
      GoStart: 1,
      GoBlock: 1,
      GoUnblock: 0,
      GoSched: 0,
      GoEnd: 0,
    });
    expect(s.get("split=75")!.counts.GoEnd).toBe(2);
  });

  it("goroutine: the goroutine's own next event at each of its steps", () => {
    const s = byKey(statesFromRuns(runs, "goroutine").states);
    // g1 is seen first (#1) through Initial, g2 second (#2).
    expect(s.get("goroutine=#1 step=0")!.counts.GoBlock).toBe(2);
    expect(s.get("goroutine=#2 step=0")!.counts.GoCreate).toBe(2);
    expect(s.get("goroutine=#2 step=1")!.counts.GoStart).toBe(2);
    expect(s.get("goroutine=#2 step=2")!.counts.GoEnd).toBe(2);
    const withIds = statesFromRuns(
      [
        {
          ...run("p", 1, run1),
          goroutines: [
            {
              goroutine: 2,
              canonicalId: "main.main/w@a.go:3#0",
              parent: 1,
              entry: "w",
              creationSite: "a.go:3",
              isRoot: false,
            },
          ],
        },
      ],
      "goroutine",
    );
    expect(withIds.states.map((st) => st.key)).toContain("goroutine=main.main/w@a.go:3#0 step=1");
  });

  it("context: scheduler-state keys pooled across runs and programs", () => {
    const all = [...runs, run("q", 3, run1)];
    const { states, samples } = statesFromRuns(all, "context");
    expect(samples).toHaveLength(12);
    const first = states.find(
      (s) =>
        s.key ===
        contextKey({ running: 1, runnable: 0, waiting: 0, waitingByReason: {}, syscall: 0, created: 0, ended: 0 }, [
          "-",
          "-",
        ]),
    )!;
    expect(first.counts.GoCreate).toBe(3);
    expect(first.runs).toBe(3);
    expect(first.program).toBe("p");
    expect(first.id).toBe(stateId("context", "q", first.key));
    // After g1 blocked on a channel and g2 is runnable, g2 starts next in run 1 (and run 3).
    const blocked = states.find(
      (s) => s.key === "running=0 runnable=1 syscall=0 waiting={chan receive:1} last=GoCreate,GoBlock(chan receive)",
    )!;
    expect(blocked.counts.GoStart).toBe(2);
  });

  it("pooling per-program results equals computing over all runs", () => {
    const all = [...runs, run("q", 3, run1), run("q", 4, run2)];
    for (const abstraction of ["split", "depth", "goroutine", "context"] as const) {
      const whole = statesFromRuns(all, abstraction).states;
      const perProgram = ["p", "q"].map(
        (p) =>
          statesFromRuns(
            all.filter((r) => r.program === p),
            abstraction,
          ).states,
      );
      const pooled = poolStates(perProgram);
      expect(pooled.map((s) => [s.id, s.counts, s.runs, s.representative.runId, s.representative.end])).toEqual(
        whole.map((s) => [s.id, s.counts, s.runs, s.representative.runId, s.representative.end]),
      );
    }
  });
});
