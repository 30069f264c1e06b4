// The prediction cache: predictions stored in SQLite keyed by (predictor id, configHash,
// state id), so a backend is only asked about states it has not answered for this
// configuration. Invariant: only validated probability vectors are ever stored.

import type { State } from "../dataset/types.js";
import { inTransaction, type SchedlabDatabase } from "../store/index.js";
import { PredictorOutputError } from "./errors.js";
import { probabilityVectorProblem } from "./probabilities.js";
import type { Prediction, Predictor, ReasoningTags } from "./types.js";

export interface PredictWithCacheOptions {
  /** States sent to the backend per predict() call (default 64); each batch is committed on its own. */
  readonly batchSize?: number;
  /** Called after each committed batch with the number of states done so far and the total missing. */
  readonly onProgress?: (done: number, missing: number) => void;
}

export interface CachedPredictions {
  /** One prediction per input state, in input order. */
  readonly predictions: Prediction[];
  /** How many distinct states were answered from the cache, and how many by the backend. */
  readonly hits: number;
  readonly computed: number;
}

interface PredictionRow {
  readonly state_id: string;
  readonly probabilities: string;
  readonly tags: string | null;
}

/** Throws PredictorOutputError unless `prediction` is a probability vector over the six events. */
export function assertValidPrediction(predictor: Predictor, stateId: string, prediction: Prediction): void {
  const problem = probabilityVectorProblem(prediction.probabilities);
  if (problem !== null) {
    throw new PredictorOutputError(
      `predictor ${predictor.id} returned an invalid vector for state ${stateId}: it ${problem}`,
      "This is a bug in the predictor backend (or a corrupt replay file); report it with the predictor spec.",
    );
  }
}

/** Reads the cached predictions of `predictor` for the given state ids (absent ids are omitted). */
export function readCachedPredictions(
  db: SchedlabDatabase,
  predictor: Pick<Predictor, "id" | "configHash">,
  stateIds: readonly string[],
): Map<string, Prediction> {
  const found = new Map<string, Prediction>();
  const chunk = 500;
  for (let start = 0; start < stateIds.length; start += chunk) {
    const ids = stateIds.slice(start, start + chunk);
    const rows = db
      .prepare(
        `SELECT state_id, probabilities, tags FROM predictions
         WHERE predictor = ? AND config_hash = ? AND state_id IN (${ids.map(() => "?").join(",")})`,
      )
      .all(predictor.id, predictor.configHash, ...ids) as PredictionRow[];
    for (const row of rows) {
      const tags = row.tags === null ? undefined : (JSON.parse(row.tags) as ReasoningTags);
      const probabilities = JSON.parse(row.probabilities) as number[];
      found.set(row.state_id, tags === undefined ? { probabilities } : { probabilities, tags });
    }
  }
  return found;
}

/** Stores predictions (replacing any for the same key) in one transaction. */
export function writeCachedPredictions(
  db: SchedlabDatabase,
  predictor: Pick<Predictor, "id" | "configHash">,
  entries: ReadonlyArray<readonly [stateId: string, prediction: Prediction]>,
): void {
  const insert = db.prepare(
    `INSERT OR REPLACE INTO predictions (predictor, config_hash, state_id, probabilities, tags, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const now = new Date().toISOString();
  inTransaction(db, () => {
    for (const [stateId, p] of entries) {
      insert.run(predictor.id, predictor.configHash, stateId, JSON.stringify(p.probabilities), p.tags === undefined ? null : JSON.stringify(p.tags), now);
    }
  });
}

/**
 * Predictions for `states`, calling the backend only for distinct states not yet cached
 * for (predictor.id, predictor.configHash), in batches. Each batch is validated and
 * committed as it completes, so an interrupted run keeps the work already paid for.
 */
export async function predictWithCache(
  db: SchedlabDatabase,
  predictor: Predictor,
  states: readonly State[],
  options: PredictWithCacheOptions = {},
): Promise<CachedPredictions> {
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const distinct = new Map<string, State>();
  for (const s of states) if (!distinct.has(s.id)) distinct.set(s.id, s);
  const known = readCachedPredictions(db, predictor, [...distinct.keys()]);
  const hits = known.size;
  const missing = [...distinct.values()].filter((s) => !known.has(s.id));
  for (let start = 0; start < missing.length; start += batchSize) {
    const batch = missing.slice(start, start + batchSize);
    const answers = await predictor.predict(batch);
    if (answers.length !== batch.length) {
      throw new PredictorOutputError(
        `predictor ${predictor.id} returned ${answers.length} predictions for ${batch.length} states`,
        "This is a bug in the predictor backend; report it with the predictor spec.",
      );
    }
    const entries = batch.map((s, i) => {
      assertValidPrediction(predictor, s.id, answers[i]);
      return [s.id, answers[i]] as const;
    });
    writeCachedPredictions(db, predictor, entries);
    for (const [id, p] of entries) known.set(id, p);
    options.onProgress?.(Math.min(start + batch.length, missing.length), missing.length);
  }
  return {
    predictions: states.map((s) => known.get(s.id) as Prediction),
    hits,
    computed: missing.length,
  };
}
