// The rollout-survival report section over runs stored in a real SQLite file.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rolloutSurvivalSection, survivalByPredictor } from "../../src/report/index.js";
import { listRolloutRuns, saveRolloutReport, summarizeRollouts } from "../../src/rollout/index.js";
import type { Rollout, RolloutReport } from "../../src/rollout/index.js";
import { openDatabase } from "../../src/store/index.js";

function report(predictor: string, constrained: boolean, rollouts: Rollout[]): RolloutReport {
  const metrics = summarizeRollouts(rollouts, [["GoStart", "GoBlock"]], 2);
  return {
    predictor: { id: predictor, configHash: "0123456789abcdef" },
    abstraction: "split",
    holdout: "default",
    steps: 2,
    samples: rollouts.length,
    temperature: 1,
    constrained,
    seed: 1,
    programs: ["a"],
    overall: metrics,
    prefixes: [{ stateId: "s1", program: "a", key: "split=50", continuations: 1, metrics }],
  };
}

describe("rollout survival section", () => {
  it("lists stored runs newest first and charts the latest survival per predictor and mode", () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), "schedlab-rollout-report-")), "schedlab.db"));
    try {
      saveRolloutReport(
        db,
        report("student:adapters/ce", false, [
          {
            events: ["GoStart"],
            survival: 1,
            end: "invalid",
            invalidEvent: "GoEnd",
            brokenRule: "end-not-running",
            infeasibleMass: [],
          },
        ]),
      );
      saveRolloutReport(
        db,
        report("student:adapters/trajectory", false, [
          { events: ["GoStart", "GoBlock"], survival: 2, end: "reached-k", infeasibleMass: [] },
        ]),
      );
      saveRolloutReport(
        db,
        report("student:adapters/ce", true, [
          { events: ["GoStart", "GoEnd"], survival: 2, end: "reached-k", infeasibleMass: [] },
        ]),
      );
      const runs = listRolloutRuns(db);
      expect(runs.map((r) => [r.id, r.predictor, r.constrained, r.meanSurvival, r.kStepAccuracy])).toEqual([
        [3, "student:adapters/ce", true, 2, 0],
        [2, "student:adapters/trajectory", false, 2, 1],
        [1, "student:adapters/ce", false, 1, 0],
      ]);
      expect(survivalByPredictor(runs)).toEqual({
        k: 2,
        predictors: ["student:adapters/ce", "student:adapters/trajectory"],
        free: [1, 2],
        constrained: [2, NaN],
      });
      const section = rolloutSurvivalSection(runs);
      expect(section.id).toBe("rollout-survival");
      const md = section.markdown();
      expect(md).toContain(
        "| 2 | student:adapters/trajectory | free | split | 2 | 1 | 1 | 1 | 2.00 | 1.000 | 1.000 | 1.000 |",
      );
      expect(section.html()).toContain("<svg");
      expect(section.html()).toContain("student:adapters/trajectory");
    } finally {
      db.close();
    }
  });
});
