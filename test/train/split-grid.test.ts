// Split states at every 5 %: the scored 25/50/75 % states among them, p̂ over all runs,
// the representative from the lowest run id.

import { describe, expect, it } from "vitest";
import { sampleOf, statesFromRuns } from "../../src/dataset/abstractions.js";
import type { RunRecords } from "../../src/dataset/types.js";
import { SPLIT_GRID_POINTS, runsOfSamples, splitGridStates } from "../../src/train/split-grid.js";
import type { GoroutineRecord, RecordKind } from "../../src/core/index.js";

function run(runId: number, kinds: readonly RecordKind[]): RunRecords {
  const records: GoroutineRecord[] = kinds.map((kind, seq) => ({
    seq,
    timeNs: seq * 10,
    kind,
    goroutine: 1,
    actor: null,
    reason: "",
    site: null,
  }));
  return { program: "p", runId, procs: 2, records };
}

describe("split grid states", () => {
  const runs = [
    run(2, [
      "Initial",
      "GoCreate",
      "GoStart",
      "GoBlock",
      "GoUnblock",
      "GoStart",
      "GoEnd",
      "GoCreate",
      "GoStart",
      "GoEnd",
    ]),
    run(1, ["Initial", "GoCreate", "GoStart", "GoSched", "GoStart", "GoBlock", "GoUnblock", "GoStart", "GoEnd"]),
  ];

  it("has the scored points' states among its 19, with the same counts and representatives", () => {
    expect(SPLIT_GRID_POINTS).toHaveLength(19);
    const grid = splitGridStates(runs);
    expect(grid.states).toHaveLength(19);
    expect(grid.samples).toHaveLength(38);
    const scored = statesFromRuns(runs, "split").states;
    for (const state of scored) {
      const same = grid.states.find((g) => g.key === state.key);
      expect(same?.counts).toEqual(state.counts);
      expect(same?.representative.runId).toBe(1); // lowest run id
      expect(same?.representative.end).toBe(state.representative.end);
    }
  });

  it("recovers the runs behind samples, one per records array, in (program, run) order", () => {
    const samples = statesFromRuns(runs, "split").samples.map((row) =>
      sampleOf(
        row,
        runs.find((r) => r.runId === row.runId)!,
      ),
    );
    expect(runsOfSamples(samples).map((r) => r.runId)).toEqual([1, 2]);
  });
});
