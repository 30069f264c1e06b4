// The rollout stage's SQLite edge: saves a RolloutReport (rollout_runs, rollout_prefixes)
// in one transaction and reads stored runs back for the report.

import { inTransaction, type SchedlabDatabase } from "../store/index.js";
import type { RolloutReport } from "./from-database.js";

/** NaN is stored as NULL (SQLite has no NaN) and read back as NaN. */
const real = (v: number): number | null => (Number.isNaN(v) ? null : v);
const fromReal = (v: number | null): number => (v === null ? NaN : v);

/** Stores the report; returns the new rollout_runs id. */
export function saveRolloutReport(
  db: SchedlabDatabase,
  report: RolloutReport,
  createdAt = new Date().toISOString(),
): number {
  return inTransaction(db, () => {
    const o = report.overall;
    const id = Number(
      db
        .prepare(
          `INSERT INTO rollout_runs (predictor, config_hash, abstraction, holdout, steps, samples, temperature, constrained, seed, prefixes,
             mean_survival, reached_k, k_step_accuracy, per_step_accuracy, l1, kl, details, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          report.predictor.id,
          report.predictor.configHash,
          report.abstraction,
          report.holdout,
          report.steps,
          report.samples,
          report.temperature,
          report.constrained ? 1 : 0,
          report.seed,
          report.prefixes.length,
          real(o.meanSurvival),
          real(o.reachedK),
          real(o.kStepAccuracy),
          real(o.perStepAccuracy),
          real(o.l1),
          real(o.kl),
          JSON.stringify(report),
          createdAt,
        ).lastInsertRowid,
    );
    const insert = db.prepare(
      "INSERT OR REPLACE INTO rollout_prefixes " +
        "(rollout_run_id, state_id, program, key, continuations, mean_survival, reached_k, k_step_accuracy) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    );
    for (const p of report.prefixes)
      insert.run(
        id,
        p.stateId,
        p.program,
        p.key,
        p.continuations,
        real(p.metrics.meanSurvival),
        real(p.metrics.reachedK),
        real(p.metrics.kStepAccuracy),
      );
    return id;
  });
}

/** One stored rollout run, as the report lists it. */
export interface StoredRolloutRun {
  readonly id: number;
  readonly predictor: string;
  readonly abstraction: string;
  readonly holdout: string;
  readonly steps: number;
  readonly samples: number;
  readonly temperature: number;
  readonly constrained: boolean;
  readonly prefixes: number;
  readonly meanSurvival: number;
  readonly reachedK: number;
  readonly kStepAccuracy: number;
  readonly perStepAccuracy: number;
  readonly l1: number;
  readonly kl: number;
  readonly createdAt: string;
}

interface RolloutRow {
  id: number;
  predictor: string;
  abstraction: string;
  holdout: string;
  steps: number;
  samples: number;
  temperature: number;
  constrained: number;
  prefixes: number;
  mean_survival: number | null;
  reached_k: number | null;
  k_step_accuracy: number | null;
  per_step_accuracy: number | null;
  l1: number | null;
  kl: number | null;
  created_at: string;
}

/** The most recent stored rollout runs, newest first (at most `limit`). */
export function listRolloutRuns(db: SchedlabDatabase, limit = 50): StoredRolloutRun[] {
  const rows = db.prepare("SELECT * FROM rollout_runs ORDER BY id DESC LIMIT ?").all(limit) as RolloutRow[];
  return rows.map((r) => ({
    id: r.id,
    predictor: r.predictor,
    abstraction: r.abstraction,
    holdout: r.holdout,
    steps: r.steps,
    samples: r.samples,
    temperature: r.temperature,
    constrained: r.constrained === 1,
    prefixes: r.prefixes,
    meanSurvival: fromReal(r.mean_survival),
    reachedK: fromReal(r.reached_k),
    kStepAccuracy: fromReal(r.k_step_accuracy),
    perStepAccuracy: fromReal(r.per_step_accuracy),
    l1: fromReal(r.l1),
    kl: fromReal(r.kl),
    createdAt: r.created_at,
  }));
}

/** The full report of a stored rollout run (its details column), or null when it is gone. */
export function loadRolloutReport(db: SchedlabDatabase, id: number): RolloutReport | null {
  const row = db.prepare("SELECT details FROM rollout_runs WHERE id = ?").get(id) as { details: string } | undefined;
  return row === undefined ? null : (JSON.parse(row.details) as RolloutReport);
}

/** Whether rollout run `id` is still stored. */
export function rolloutRunExists(db: SchedlabDatabase, id: number): boolean {
  return db.prepare("SELECT 1 FROM rollout_runs WHERE id = ?").get(id) !== undefined;
}
