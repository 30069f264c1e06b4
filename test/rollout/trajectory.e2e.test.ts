// The trajectory objective of the student: multi-step discounted targets, and a trajectory
// student trained on real traces rolled out beside the single-step (ce) student.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { statesFromRuns } from "../../src/dataset/abstractions.js";
import type { Prefix, Sample } from "../../src/dataset/types.js";
import { rollOut, summarizeRollouts } from "../../src/rollout/index.js";
import type { Rollout } from "../../src/rollout/index.js";
import { seededRandom } from "../../src/random.js";
import { loadStudentPredictor } from "../../src/predict/index.js";
import { saveAdapter } from "../../src/train/index.js";
import { setTrajectoryTargets } from "../../src/train/rows.js";
import { featureMatrixOf } from "../../src/train/feature-matrix.js";
import type { TrainingMatrix } from "../../src/train/fit.js";
import type { GoroutineRecord, RecordKind } from "../../src/core/index.js";
import { FIXTURE_PROGRAMS, traceFixtures, trainOnDatabase, type TracedCorpus } from "../train/traced-runs.js";

function stream(kinds: readonly RecordKind[]): GoroutineRecord[] {
  return kinds.map((kind, seq) => ({ seq, timeNs: seq, kind, goroutine: 1, actor: null, reason: "", site: null }));
}

function matrix(rows: number): TrainingMatrix {
  return {
    rows,
    inputs: 1,
    x: featureMatrixOf(new Float32Array(rows), rows, 1),
    events: new Float64Array(rows * 6),
    weights: new Float64Array(rows).fill(1),
    counts: new Float64Array(rows).fill(1),
    tags: null,
    feasible: new Uint8Array(rows * 6).fill(1),
  };
}

describe("setTrajectoryTargets", () => {
  // Event sequence GoCreate GoStart GoBlock GoUnblock, with a syscall record in between.
  const records = stream(["Initial", "GoCreate", "GoStart", "SyscallEnter", "SyscallExit", "GoBlock", "GoUnblock"]);
  const prefix = (end: number): Prefix => ({ program: "p", runId: 1, procs: 1, records, end });

  it("mixes the run's next k event types with weights γ^j, normalised", () => {
    const m = matrix(1);
    const samples: Sample[] = [{ stateId: "s", prefix: prefix(2), next: "GoStart" }];
    setTrajectoryTargets(m, samples, 3, 0.5);
    // GoStart 1, GoBlock 0.5, GoUnblock 0.25 over 1.75; non-event records skipped.
    expect(Array.from(m.events).map((v) => +v.toFixed(12))).toEqual(
      [0, 1 / 1.75, 0.5 / 1.75, 0.25 / 1.75, 0, 0].map((v) => +v.toFixed(12)),
    );
  });

  it("near the end of the run normalises over the steps that exist; k = 1 is the CE target", () => {
    const m = matrix(2);
    setTrajectoryTargets(
      m,
      [
        { stateId: "s", prefix: prefix(5), next: "GoBlock" },
        { stateId: "s", prefix: prefix(1), next: "GoCreate" },
      ],
      1,
      0.5,
    );
    expect(Array.from(m.events.subarray(0, 6))).toEqual([0, 0, 1, 0, 0, 0]);
    expect(Array.from(m.events.subarray(6))).toEqual([1, 0, 0, 0, 0, 0]);
    const last = matrix(1);
    setTrajectoryTargets(last, [{ stateId: "s", prefix: prefix(6), next: "GoUnblock" }], 4, 0.5);
    expect(Array.from(last.events)).toEqual([0, 0, 0, 1, 0, 0]);
  });

  it("rejects k < 1 and γ outside (0, 1] with a hint", () => {
    expect(() => setTrajectoryTargets(matrix(0), [], 0, 0.5)).toThrow(/trajectory steps/);
    expect(() => setTrajectoryTargets(matrix(0), [], 2, 1.5)).toThrow(/trajectory discount/);
  });
});

describe("trajectory student on real traces", () => {
  let corpus: TracedCorpus;
  beforeAll(async () => {
    corpus = await traceFixtures(FIXTURE_PROGRAMS, 2, 2);
  }, 300_000);

  it("trains, records k and γ on its card, and rolls out beside the ce student", async () => {
    const dir = mkdtempSync(join(tmpdir(), "schedlab-trajectory-"));
    const base = { abstraction: "depth", holdout: "list:pingpong", epochs: 12, hidden: 16 } as const;
    const summaries: Record<string, ReturnType<typeof summarizeRollouts>> = {};
    const params: Record<string, readonly number[]> = {};
    for (const objective of ["ce", "trajectory"] as const) {
      const student = await trainOnDatabase(corpus.dbPath, { ...base, objective });
      expect(student.card.training.objective).toBe(objective);
      if (objective === "trajectory")
        expect(student.card.training.hyperParameters).toMatchObject({ trajectorySteps: 4, trajectoryDiscount: 0.5 });
      else expect(student.card.training.hyperParameters).not.toHaveProperty("trajectorySteps");
      params[objective] = Array.from(student.weights.params);
      saveAdapter(join(dir, objective), student);
      const predictor = await loadStudentPredictor(join(dir, objective));
      const states = statesFromRuns(
        corpus.runs.filter((r) => r.program === "pingpong"),
        "depth",
      ).states.filter((_, i) => i % 20 === 0);
      const rollouts: Rollout[] = [];
      for (const state of states)
        rollouts.push(
          ...(await rollOut(predictor, state, {
            steps: 8,
            samples: 3,
            temperature: 1,
            constrained: false,
            random: seededRandom(4),
          })),
        );
      summaries[objective] = summarizeRollouts(rollouts, [], 8);
    }
    for (const m of Object.values(summaries)) {
      expect(m.rollouts).toBeGreaterThan(20);
      expect(m.meanSurvival).toBeGreaterThanOrEqual(0);
      expect(m.meanSurvival).toBeLessThanOrEqual(8);
    }
    // The two objectives give different students (different targets, same seed and data).
    // Their rolled-out event mixes can coincide on a short sample of rollouts, so the
    // weights are compared.
    expect(params.ce).toHaveLength(params.trajectory!.length);
    expect(params.ce).not.toEqual(params.trajectory);
  }, 300_000);
});
