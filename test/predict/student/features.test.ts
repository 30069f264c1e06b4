// Features of a prefix: exact scheduler state, recent records, no look-ahead, and the
// incremental featurizer agreeing with one-prefix replays.

import { describe, expect, it } from "vitest";
import type { Prefix } from "../../../src/dataset/types.js";
import {
  FEATURE_COUNT,
  FEATURE_SPEC,
  NO_FEATURE_INPUTS,
  featurizePrefixes,
  prefixFeatures,
  type FeatureInputs,
} from "../../../src/predict/student/features.js";
import { normaliseStaticFeatures } from "../../../src/predict/student/static-features.js";
import type { GoroutineRecord, RecordKind } from "../../../src/core/index.js";

let seq = 0;
function rec(
  kind: RecordKind,
  goroutine: number,
  actor: number | null,
  reason = "",
  timeNs = seq * 1000,
): GoroutineRecord {
  return { seq: seq++, timeNs, kind, goroutine, actor, reason, site: null };
}

// g1 (root) creates g2 and g3, blocks on a channel; g2 runs and unblocks g1, g3 sleeps, g2 ends.
const records: GoroutineRecord[] = [
  rec("Initial", 1, null, "Running"),
  rec("GoCreate", 2, 1),
  rec("GoCreate", 3, 1),
  rec("GoBlock", 1, 1, "chan receive"),
  rec("GoStart", 2, null),
  rec("GoUnblock", 1, 2),
  rec("GoStart", 3, null),
  rec("GoBlock", 3, 3, "sleep"),
  rec("GoEnd", 2, 2),
  rec("GoStart", 1, null),
];

const prefix = (end: number, recs = records): Prefix => ({ program: "p", runId: 1, procs: 2, records: recs, end });
const column = (v: Float64Array, name: string): number => {
  const i = FEATURE_SPEC.names.indexOf(name);
  if (i < 0) throw new Error(`no feature ${name}`);
  return v[i];
};

describe("prefix features", () => {
  it("has one unique name per column", () => {
    expect(new Set(FEATURE_SPEC.names).size).toBe(FEATURE_COUNT);
    expect(FEATURE_COUNT).toBeGreaterThan(150);
  });

  it("reconstructs the scheduler state exactly", () => {
    const v = prefixFeatures(prefix(8)); // after g3 blocks in sleep
    expect(column(v, "state.log1p.running")).toBeCloseTo(Math.log1p(1)); // g2
    expect(column(v, "state.log1p.runnable")).toBeCloseTo(Math.log1p(1)); // g1
    expect(column(v, "state.log1p.waiting")).toBeCloseTo(Math.log1p(1)); // g3
    expect(column(v, "state.waiting.log1p.sleep")).toBeCloseTo(Math.log1p(1));
    expect(column(v, "state.waiting.log1p.chan receive")).toBe(0);
    expect(column(v, "state.log1p.created")).toBeCloseTo(Math.log1p(2));
    expect(column(v, "state.frac.waiting")).toBeCloseTo(1 / 3);
    expect(column(v, "recent1.kind.GoBlock")).toBe(1);
    expect(column(v, "recent1.reason.sleep")).toBe(1);
    expect(column(v, "recent1.subjectNow.waiting")).toBe(1);
    expect(column(v, "recent2.kind.GoStart")).toBe(1);
    expect(column(v, "recent2.sameSubjectAsPrevious")).toBe(0);
    expect(column(v, "recent1.sameSubjectAsPrevious")).toBe(1);
    expect(column(v, "recent3.kind.GoUnblock")).toBe(1);
    expect(column(v, "recent3.subjectIsRoot")).toBe(1);
    expect(column(v, "recent3.actorIsRoot")).toBe(0);
    expect(column(v, "root.status.runnable")).toBe(1);
    expect(column(v, "procs.log2")).toBe(1);
    expect(column(v, "procs.runnableWithIdleP")).toBe(1);
    expect(column(v, "static.present")).toBe(0);
    expect(column(v, "depth.events.log1p")).toBeCloseTo(Math.log1p(7));
  });

  it("reads the run's own evidence: in-context counts, the current goroutine, wake-ups, queues, time since each event", () => {
    const v = prefixFeatures(prefix(8)); // g2 runs (started last), g1 runnable (woken by g2), g3 sleeps
    expect(column(v, "feasible.GoStart")).toBe(1); // g1 runnable, 1 of 2 Ps busy
    expect(column(v, "feasible.GoUnblock")).toBe(1); // g3 waits
    expect(column(v, "feasible.GoCreate")).toBe(1);
    // Events so far: Create, Create, Block, Start, Unblock, Start, Block.
    expect(column(v, "ctx.ngram0.p.GoCreate")).toBeCloseTo(2 / 7);
    expect(column(v, "ctx.ngram0.log1pCount")).toBeCloseTo(Math.log1p(7));
    expect(column(v, "ctx.ngram1.log1pCount")).toBe(0); // nothing followed a GoBlock(sleep) yet
    expect(column(v, "own.current.exists")).toBe(1);
    expect(column(v, "own.current.lastKind.GoStart")).toBe(1); // g2's own last event
    expect(column(v, "wake.wokenRunnable")).toBe(1);
    expect(column(v, "wake.wakerIsCurrent")).toBe(1);
    expect(column(v, "queue.oldestWaitingReason.sleep")).toBe(1);
    expect(column(v, "since.GoUnblock.log1pEvents")).toBeCloseTo(Math.log1p(3));
    expect(column(v, "since.GoEnd.never")).toBe(1);
    // Nothing can start while both Ps are taken: after g2 and g3 run (prefix 7), g1 is runnable.
    const busy = prefixFeatures(prefix(7));
    expect(column(busy, "feasible.GoStart")).toBe(0);
    expect(column(busy, "feasible.GoUnblock")).toBe(0);
  });

  it("never looks past the end of the prefix", () => {
    const altered = [
      ...records.slice(0, 5),
      rec("GoEnd", 1, 1),
      rec("GoCreate", 9, 1),
      rec("GoSched", 2, 2, "runtime.Gosched"),
    ];
    expect(Array.from(prefixFeatures(prefix(5, altered)))).toEqual(Array.from(prefixFeatures(prefix(5))));
    expect(Array.from(prefixFeatures(prefix(6, altered)))).not.toEqual(Array.from(prefixFeatures(prefix(6))));
  });

  it("featurises many prefixes of one run in one walk, equal to replaying each", () => {
    const staticFeatures = normaliseStaticFeatures({ goStmts: 2, sends: 1 });
    const prefixes = [7, 2, 10, 0, 5].map((end) => prefix(end));
    const inputs: FeatureInputs = { ...NO_FEATURE_INPUTS, staticOf: () => staticFeatures };
    const rows = featurizePrefixes(prefixes, inputs).x;
    prefixes.forEach((p, i) => {
      const one = Float32Array.from(prefixFeatures(p, inputs));
      expect(Array.from(rows.subarray(i * FEATURE_COUNT, (i + 1) * FEATURE_COUNT))).toEqual(Array.from(one));
    });
    expect(rows[FEATURE_SPEC.names.indexOf("static.log1p.goStmts")]).toBeCloseTo(Math.log1p(2), 5);
  });
});
