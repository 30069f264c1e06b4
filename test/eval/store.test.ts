import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/evaluate.js";
import { NoEvaluationError } from "../../src/eval/errors.js";
import { listEvaluations, loadEvaluation, saveEvaluation } from "../../src/eval/store.js";
import { openDatabase } from "../../src/store/index.js";
import { ORACLE, STATES, UNIFORM, samplesOf } from "./fixtures/states.js";

const dir = mkdtempSync(join(tmpdir(), "schedlab-eval-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("eval store", () => {
  it("round-trips an evaluation, keeping undefined metrics as NaN", () => {
    const db = openDatabase(join(dir, "a.db"));
    const result = evaluate(STATES, samplesOf(STATES), [ORACLE, UNIFORM], { abstraction: "split", holdout: "h1" });
    const id = saveEvaluation(db, result, { predictors: ["oracle", "uniform"] });
    const loaded = loadEvaluation(db);
    expect(loaded.id).toBe(id);
    expect(loaded.abstraction).toBe("split");
    expect(loaded.samples).toBe(8);
    expect(loaded.options).toEqual({ predictors: ["oracle", "uniform"] });
    expect(loaded.predictors.map((p) => p.name)).toEqual(["oracle", "uniform"]);
    expect(loaded.predictors[1]!.entropySpearman).toBeNaN();
    expect(loaded.predictors[0]!.perEvent.GoSched.precision).toBeNaN();
    expect(loaded.predictors[0]!.accuracy).toBe(0.75);
    expect(loaded.comparisons[0]!.mcnemarIndependent.pValue).toBeCloseTo(2 / 32, 12);
    expect(loaded.comparisons[0]!.clusterTest.pValue).toBe(0.5);
    expect(loaded.predictors[1]!.eceInterval).toEqual(result.predictors[1]!.eceInterval);
    expect(loaded.predictors[0]!.ceilingLoo).toBeCloseTo(5 / 8, 12);
    const row = db
      .prepare("SELECT entropy_spearman, accuracy, ceiling_loo FROM eval_results WHERE predictor = 'uniform'")
      .get() as {
      entropy_spearman: number | null;
      accuracy: number;
      ceiling_loo: number;
    };
    expect(row.entropy_spearman).toBeNull();
    expect(row.accuracy).toBeCloseTo(1 / 6, 15);
    expect(row.ceiling_loo).toBeCloseTo(5 / 8, 12);
    const comparison = db.prepare("SELECT cluster_p, mcnemar_p FROM eval_comparisons").get() as {
      cluster_p: number;
      mcnemar_p: number;
    };
    expect(comparison.cluster_p).toBe(0.5);
    expect(comparison.mcnemar_p).toBeCloseTo(2 / 32, 12);
    db.close();
  });

  it("returns the latest run by default and any run by id", () => {
    const db = openDatabase(join(dir, "b.db"));
    const first = saveEvaluation(
      db,
      evaluate(STATES, samplesOf(STATES), [ORACLE], { abstraction: "split", holdout: "h1" }),
    );
    const second = saveEvaluation(
      db,
      evaluate(STATES, samplesOf(STATES), [UNIFORM], { abstraction: "depth", holdout: "h2" }),
    );
    expect(loadEvaluation(db).id).toBe(second);
    expect(loadEvaluation(db).predictors[0]!.name).toBe("uniform");
    expect(loadEvaluation(db, first).holdout).toBe("h1");
    const listed = listEvaluations(db);
    expect(listed.map((r) => [r.id, r.abstraction, r.predictors.map((p) => p.name)])).toEqual([
      [second, "depth", ["uniform"]],
      [first, "split", ["oracle"]],
    ]);
    expect(listed[1]!.predictors[0]!.accuracy).toBe(0.75);
    expect(listed[1]!.ceiling).toBe(0.75);
    expect(listEvaluations(db, 1)).toHaveLength(1);
    db.close();
  });

  it("says what to run when there is nothing stored", () => {
    const db = openDatabase(join(dir, "c.db"));
    expect(() => loadEvaluation(db)).toThrow(NoEvaluationError);
    expect(() => loadEvaluation(db)).toThrow(/no evaluation results/);
    db.close();
  });
});
