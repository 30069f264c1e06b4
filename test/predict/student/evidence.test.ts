// The in-context expert's evidence-earned share: the fixed-share update, its limits, and that a
// prefix's share never reads the run's future.

import { describe, expect, it } from "vitest";
import type { Prefix } from "../../../src/dataset/types.js";
import {
  confidenceTrajectory,
  expertShares,
  LIKELIHOOD_FLOOR,
  prefixEvidence,
  shareTrajectory,
  withEarned,
  type RunLikelihoods,
} from "../../../src/predict/student/evidence.js";
import { calibrateRow, type StudentCalibration } from "../../../src/predict/student/calibration.js";
import {
  FEATURE_COUNT,
  featurizePrefixes,
  NO_FEATURE_INPUTS,
  runMemo,
  type PrefixFeaturizer,
} from "../../../src/predict/student/features.js";
import type { RunWalk } from "../../../src/predict/student/evidence.js";
import type { GoroutineRecord, RecordKind } from "../../../src/core/index.js";

let seq = 0;
const rec = (kind: RecordKind, goroutine: number, actor: number | null, reason = ""): GoroutineRecord => ({
  seq: seq++,
  timeNs: seq * 1000,
  kind,
  goroutine,
  actor,
  reason,
  site: null,
});

const likelihoods = (student: number[], expert: number[]): RunLikelihoods => ({
  positions: Int32Array.from(student.map((_, i) => i)),
  student: Float64Array.from(student),
  expert: Float64Array.from(expert),
});

describe("the expert's evidence-earned share", () => {
  it("starts at the prior and follows Bayes' rule, then returns a share ρ of the weight to the prior", () => {
    const w = shareTrajectory(likelihoods([0.2, 0.5], [0.8, 0.5]), { prior: 0.25, switchRate: 0.1 });
    expect(w).toHaveLength(3);
    expect(w[0]).toBe(0.25);
    const posterior = (0.25 * 0.8) / (0.25 * 0.8 + 0.75 * 0.2); // 4/7
    expect(w[1]).toBeCloseTo(0.9 * posterior + 0.1 * 0.25, 12);
    // Equal likelihoods leave the posterior where it was; only the drift back to π moves it.
    expect(w[2]).toBeCloseTo(0.9 * w[1] + 0.1 * 0.25, 12);
  });

  it("hands a run to the expert that keeps predicting it better, and back when it stops", () => {
    const better = Array.from({ length: 40 }, () => 0.9);
    const worse = Array.from({ length: 40 }, () => 0.3);
    const w = shareTrajectory(likelihoods([...worse, ...better], [...better, ...worse]), {
      prior: 0.1,
      switchRate: 0.01,
    });
    expect(w[40]).toBeGreaterThan(0.98);
    expect(w[80]).toBeLessThan(0.05);
  });

  it("is the fixed share π at every prefix when ρ = 1", () => {
    const w = shareTrajectory(likelihoods([0.1, 0.9, 0.5], [0.9, 0.1, 0.5]), { prior: 0.3, switchRate: 1 });
    expect(Array.from(w)).toEqual([0.3, 0.3, 0.3, 0.3]);
  });

  it("floors a likelihood of zero, so one surprise cannot end an expert for good", () => {
    const w = shareTrajectory(likelihoods([0.5, 0.5], [0, 0.5]), { prior: 0.5, switchRate: 0.001 });
    expect(w[1]).toBeCloseTo(0.999 * (LIKELIHOOD_FLOOR / (LIKELIHOOD_FLOOR + 0.5)) + 0.0005, 12);
    expect(w[1]).toBeGreaterThan(0);
  });

  it("reads each run once and gives every prefix the share after the events before it, never after", () => {
    const records = [
      rec("Initial", 1, null, "Running"),
      rec("GoCreate", 2, 1),
      rec("GoBlock", 1, 1, "chan receive"),
      rec("GoStart", 2, null),
      rec("GoUnblock", 1, 2),
      rec("GoEnd", 2, 2),
      rec("GoStart", 1, null),
    ];
    const prefix = (end: number, recs = records): Prefix => ({ program: "p", runId: 1, procs: 1, records: recs, end });
    let calls = 0;
    const uniform = (_row: Float32Array, q: Float64Array): void => {
      calls++;
      q.fill(1 / 6);
    };
    const evidence = prefixEvidence([prefix(5), prefix(2), prefix(4)], NO_FEATURE_INPUTS, uniform);
    expect(evidence.runs).toHaveLength(1);
    expect(Array.from(evidence.runs[0].positions)).toEqual([1, 2, 3, 4]); // events before the longest prefix
    expect(calls).toBe(4);
    expect(Array.from(evidence.eventsBefore)).toEqual([4, 1, 3]);
    const shares = expertShares(evidence, { prior: 0.2, switchRate: 0.05, maxShare: 0.5 }).expert;
    const w = shareTrajectory(evidence.runs[0], { prior: 0.2, switchRate: 0.05 });
    expect(Array.from(shares)).toEqual([0.5 * w[4], 0.5 * w[1], 0.5 * w[3]]);
    // What follows the prefix's end does not change its share.
    const altered = [...records.slice(0, 4), rec("GoSched", 2, 2, "runtime.Gosched"), rec("GoEnd", 2, 2)];
    const again = expertShares(prefixEvidence([prefix(4, altered)], NO_FEATURE_INPUTS, uniform), {
      prior: 0.2,
      switchRate: 0.05,
      maxShare: 0.5,
    }).expert;
    expect(again[0]).toBe(shares[2]);
  });

  it("goes on with a memo from where the last call left a run, as if every prefix had been asked at once", () => {
    const records = [rec("Initial", 1, null, "Running"), rec("GoCreate", 2, 1)];
    for (let i = 0; i < 30; i++) {
      records.push(rec("GoBlock", 1, 1, "chan receive"), rec("GoStart", 2, null), rec("GoUnblock", 1, 2));
      records.push(rec("GoSched", 2, 2, "runtime.Gosched"), rec("GoStart", 1, null));
    }
    const prefix = (end: number): Prefix => ({ program: "p", runId: 1, procs: 1, records, end });
    const ends = [3, 9, 10, 40, 41, 77, 120, 151];
    let calls = 0;
    const student = (row: Float32Array, q: Float64Array): void => {
      calls++;
      for (let c = 0; c < 6; c++) q[c] = (1 + c + (row[c] % 3)) / 27;
    };
    const mixture = { prior: 0.2, switchRate: 0.1, maxShare: 0.3 };
    const allAtOnce = expertShares(prefixEvidence(ends.map(prefix), NO_FEATURE_INPUTS, student), mixture).expert;
    const onceCalls = calls;
    const rows = featurizePrefixes(ends.map(prefix), NO_FEATURE_INPUTS);

    calls = 0;
    const walks = runMemo<RunWalk>(4);
    const featurizers = runMemo<PrefixFeaturizer>(4);
    const batches = [[0, 1], [2], [3, 4, 5], [6, 7]];
    for (const batch of batches) {
      const prefixes = batch.map((i) => prefix(ends[i]));
      const shares = expertShares(prefixEvidence(prefixes, NO_FEATURE_INPUTS, student, walks), mixture).expert;
      expect(Array.from(shares)).toEqual(batch.map((i) => allAtOnce[i]));
      const x = featurizePrefixes(prefixes, NO_FEATURE_INPUTS, featurizers).x;
      batch.forEach((i, k) =>
        expect(Array.from(x.subarray(k * FEATURE_COUNT, (k + 1) * FEATURE_COUNT))).toEqual(
          Array.from(rows.x.subarray(i * FEATURE_COUNT, (i + 1) * FEATURE_COUNT)),
        ),
      );
    }
    // Each event before the last prefix was scored once over all the batches, as in the one call.
    expect(calls).toBe(onceCalls);
    // A prefix before where the kept featurizer stands is featurised afresh, not refused.
    expect(Array.from(featurizePrefixes([prefix(5)], NO_FEATURE_INPUTS, featurizers).x)).toEqual(
      Array.from(featurizePrefixes([prefix(5)], NO_FEATURE_INPUTS).x),
    );
  });
});

describe("the answer's confidence earned by evidence", () => {
  const confidence = { levels: [2, 1, 0.5, 0.25], prior: 0.2, switchRate: 0.05 };
  /** A run of n events, each the event 0, where the student gives event 0 `p` and the rest evenly; the expert is uniform. */
  function run(n: number, p: number): RunLikelihoods {
    const student = [p, ...new Array<number>(5).fill((1 - p) / 5)];
    const expert = new Array<number>(6).fill(1 / 6);
    return {
      positions: Int32Array.from({ length: n }, (_, i) => i),
      student: new Float64Array(n).fill(p),
      expert: new Float64Array(n).fill(1 / 6),
      events: new Uint8Array(n),
      distributions: Float64Array.from(Array.from({ length: n }, () => [...student, ...expert]).flat()),
    };
  }

  it("starts at the prior and moves to the sharper levels in a run the answer keeps getting right while unsure", () => {
    const r = run(60, 0.6);
    const v = confidenceTrajectory(r, shareTrajectory(r, { prior: 0.2, switchRate: 0.1 }), 0.3, confidence);
    expect(Array.from(v.subarray(0, 4))).toEqual([0.2 / 3, 0.8, 0.2 / 3, 0.2 / 3]);
    const last = v.subarray(60 * 4, 61 * 4);
    expect(last[3]! + last[2]!).toBeGreaterThan(0.8); // levels 0.25 and 0.5
    expect(last[0]).toBeLessThan(0.05); // level 2
  });

  it("moves to the flattest level in a run the answer keeps getting wrong", () => {
    // The event that comes (0) is the one the student gives 0.05.
    const r = run(60, 0.05);
    const v = confidenceTrajectory(r, shareTrajectory(r, { prior: 0.2, switchRate: 0.1 }), 0.3, confidence);
    const last = v.subarray(60 * 4, 61 * 4);
    expect(last[0]).toBeGreaterThan(0.8);
  });

  it("sharpens or flattens the mixed distribution without changing its top event", () => {
    const r = run(60, 0.6);
    const evidence = { runs: [r], runOf: Int32Array.of(0, 0), eventsBefore: Int32Array.of(0, 60) };
    const earned = expertShares(evidence, { prior: 0.2, switchRate: 0.1, maxShare: 0.3 }, confidence);
    expect(earned.levels).toEqual(confidence.levels);
    const base: StudentCalibration = {
      temperature: 1,
      priorWeight: 0,
      prior: new Array<number>(6).fill(1 / 6),
      feasibility: "none",
      infeasibleCap: 0,
    };
    const logits = [Math.log(0.6), ...new Array<number>(5).fill(Math.log(0.08))];
    const at = (i: number): Float64Array => {
      const q = Float64Array.from(logits);
      calibrateRow(q, 6, withEarned(base, earned, i), null, 0, null);
      return q;
    };
    const start = at(0);
    const later = at(1);
    expect(later.indexOf(Math.max(...later))).toBe(0);
    expect(later[0]).toBeGreaterThan(start[0]! + 0.2);
    expect(later.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });
});
