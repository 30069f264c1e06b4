// Storing evaluation results in SQLite (tables eval_runs, eval_results, eval_comparisons)
// and reading them back for reports. Writes are one transaction per eval run.

import type { Abstraction } from "../dataset/index.js";
import { inTransaction, type SchedlabDatabase } from "../store/index.js";
import { NoEvaluationError } from "./errors.js";
import type { EvaluationResult, PredictorComparison, PredictorEvaluation } from "./types.js";

/** An evaluation as stored: the result plus when and how it was made. */
export interface StoredEvaluation extends EvaluationResult {
  readonly id: number;
  readonly createdAt: string;
  readonly states: number;
  readonly samples: number;
  readonly programs: number;
  /** The options of the eval run (predictor specs, holdout, seeds …) as given. */
  readonly options: Readonly<Record<string, unknown>>;
}

/** SQLite has no NaN: undefined metrics are stored as NULL. */
const real = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** JSON has no NaN either: JSON.stringify writes null; reading maps null back to NaN (every nullable field is a number). */
const reviveNaN = (_key: string, value: unknown): unknown => (value === null ? NaN : value);

/** Stores one evaluation; returns its eval run id. The full result of each predictor (intervals included) goes in eval_results.metrics as JSON. */
export function saveEvaluation(
  db: SchedlabDatabase,
  result: EvaluationResult,
  options: Readonly<Record<string, unknown>> = {},
  now: Date = new Date(),
): number {
  const first = result.predictors[0];
  return inTransaction(db, () => {
    const run = db
      .prepare(
        `INSERT INTO eval_runs (created_at, abstraction, holdout, states, samples, programs, options)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        now.toISOString(),
        result.abstraction,
        result.holdout,
        first?.states ?? 0,
        first?.samples ?? 0,
        first?.programs ?? 0,
        JSON.stringify(options),
      );
    const id = Number(run.lastInsertRowid);
    const insertResult = db.prepare(
      `INSERT INTO eval_results (eval_run_id, position, predictor, config_hash, accuracy, mode_accuracy, ceiling, ceiling_loo, majority,
         macro_f1, ece, brier, nll, kl, l1, entropy_spearman, entropy_pearson, metrics)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    result.predictors.forEach((p, position) => {
      insertResult.run(
        id,
        position,
        p.name,
        p.configHash,
        real(p.accuracy),
        real(p.modeAccuracy),
        real(p.ceiling),
        real(p.ceilingLoo),
        real(p.majority),
        real(p.macroF1),
        real(p.ece),
        real(p.brier),
        real(p.nll),
        real(p.kl),
        real(p.l1),
        real(p.entropySpearman),
        real(p.entropyPearson),
        JSON.stringify(p),
      );
    });
    const insertComparison = db.prepare(
      `INSERT INTO eval_comparisons (eval_run_id, predictor_a, predictor_b, difference, ci_lower, ci_upper, cluster_p, mcnemar_p, details)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const c of result.comparisons) {
      insertComparison.run(
        id,
        c.a,
        c.b,
        real(c.difference.estimate),
        real(c.difference.lower),
        real(c.difference.upper),
        real(c.clusterTest.pValue),
        real(c.mcnemarIndependent.pValue),
        JSON.stringify(c),
      );
    }
    return id;
  });
}

interface EvalRunRow {
  readonly id: number;
  readonly created_at: string;
  readonly abstraction: string;
  readonly holdout: string;
  readonly states: number;
  readonly samples: number;
  readonly programs: number;
  readonly options: string;
}

/** The fields of an eval run's row that every reader shows, in domain names. */
function runHeader(run: EvalRunRow) {
  return {
    id: run.id,
    createdAt: run.created_at,
    abstraction: run.abstraction as Abstraction,
    holdout: run.holdout,
    states: run.states,
    samples: run.samples,
    programs: run.programs,
  };
}

/** Reads one stored evaluation by id, or the latest when id is omitted. */
export function loadEvaluation(db: SchedlabDatabase, id?: number): StoredEvaluation {
  const run = (
    id === undefined
      ? db.prepare("SELECT * FROM eval_runs ORDER BY id DESC LIMIT 1").get()
      : db.prepare("SELECT * FROM eval_runs WHERE id = ?").get(id)
  ) as EvalRunRow | undefined;
  if (run === undefined) {
    throw new NoEvaluationError(
      id === undefined ? "the database holds no evaluation results yet" : `no evaluation with id ${id}`,
      "Run `schedlab eval --predictor P --abstraction A` first (with the same --db).",
    );
  }
  const predictors = (
    db.prepare("SELECT metrics FROM eval_results WHERE eval_run_id = ? ORDER BY position").all(run.id) as {
      metrics: string;
    }[]
  ).map((row) => JSON.parse(row.metrics, reviveNaN) as PredictorEvaluation);
  const comparisons = (
    db.prepare("SELECT details FROM eval_comparisons WHERE eval_run_id = ? ORDER BY rowid").all(run.id) as {
      details: string;
    }[]
  ).map((row) => JSON.parse(row.details, reviveNaN) as PredictorComparison);
  return {
    ...runHeader(run),
    options: JSON.parse(run.options) as Record<string, unknown>,
    predictors,
    comparisons,
  };
}

/** One line per stored eval run, for listings. */
export interface EvaluationSummary {
  readonly id: number;
  readonly createdAt: string;
  readonly abstraction: Abstraction;
  readonly holdout: string;
  readonly states: number;
  readonly samples: number;
  readonly programs: number;
  /** Predictor names with their accuracy, in command-line order. */
  readonly predictors: readonly { readonly name: string; readonly accuracy: number }[];
  /** The ceiling of the run's test states (the same for every predictor); NaN without results. */
  readonly ceiling: number;
}

/** The most recent eval runs, newest first. */
export function listEvaluations(db: SchedlabDatabase, limit = 20): EvaluationSummary[] {
  const runs = db.prepare("SELECT * FROM eval_runs ORDER BY id DESC LIMIT ?").all(limit) as EvalRunRow[];
  const results = db.prepare(
    "SELECT predictor, accuracy, ceiling FROM eval_results WHERE eval_run_id = ? ORDER BY position",
  );
  return runs.map((run) => {
    const rows = results.all(run.id) as { predictor: string; accuracy: number | null; ceiling: number | null }[];
    return {
      ...runHeader(run),
      predictors: rows.map((r) => ({ name: r.predictor, accuracy: r.accuracy ?? NaN })),
      ceiling: rows[0]?.ceiling ?? NaN,
    };
  });
}

/** Whether eval run `id` is still stored. */
export function evaluationExists(db: SchedlabDatabase, id: number): boolean {
  return db.prepare("SELECT 1 FROM eval_runs WHERE id = ?").get(id) !== undefined;
}
