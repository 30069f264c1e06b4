// The prediction cache: predictions stored in SQLite keyed by (predictor id, configHash,
// prefix hash), so a backend is only asked about prefixes it has not answered for this
// configuration. A predictor sees a state only through its representative prefix, so the
// prefix's content, not the state id, decides whether an answer applies: a state id of
// another collection (or of new runs) with another prefix never reuses it.
// Invariant: only validated probability vectors are ever stored.

import type { State } from "../dataset/index.js";
import { inTransaction, type SchedlabDatabase } from "../store/index.js";
import { PredictorOutputError } from "./errors.js";
import { probabilityVectorProblem } from "./probabilities.js";
import type { Prediction, Predictor, ReasoningTags } from "./types.js";
import type { Progress } from "../progress.js";

export interface PredictWithCacheOptions {
  /** States sent to the backend per predict() call (default 64); each batch is committed on its own. */
  readonly batchSize?: number;
  /** After each committed batch: "D/M states predicted" (transient), D done of the M missing. */
  readonly onProgress?: Progress;
}

export interface CachedPredictions {
  /** One prediction per input state, in input order. */
  readonly predictions: Prediction[];
  /** How many distinct states were answered from the cache, and how many by the backend. */
  readonly hits: number;
  readonly computed: number;
}

interface PredictionRow {
  readonly prefix_hash: string;
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

/** Reads the cached predictions of `predictor` for the given prefix hashes (absent ones are omitted). */
export function readCachedPredictions(
  db: SchedlabDatabase,
  predictor: Pick<Predictor, "id" | "configHash">,
  prefixHashes: readonly string[],
): Map<string, Prediction> {
  const found = new Map<string, Prediction>();
  const chunk = 500;
  for (let start = 0; start < prefixHashes.length; start += chunk) {
    const keys = prefixHashes.slice(start, start + chunk);
    const rows = db
      .prepare(
        `SELECT prefix_hash, probabilities, tags FROM predictions
         WHERE predictor = ? AND config_hash = ? AND prefix_hash IN (${keys.map(() => "?").join(",")})`,
      )
      .all(predictor.id, predictor.configHash, ...keys) as PredictionRow[];
    for (const row of rows) {
      const tags = row.tags === null ? undefined : (JSON.parse(row.tags) as ReasoningTags);
      const probabilities = JSON.parse(row.probabilities) as number[];
      found.set(row.prefix_hash, tags === undefined ? { probabilities } : { probabilities, tags });
    }
  }
  return found;
}

/** Stores predictions of states (replacing any for the same prefix) in one transaction. */
export function writeCachedPredictions(
  db: SchedlabDatabase,
  predictor: Pick<Predictor, "id" | "configHash">,
  entries: ReadonlyArray<readonly [state: Pick<State, "id" | "prefixHash">, prediction: Prediction]>,
): void {
  const insert = db.prepare(
    `INSERT OR REPLACE INTO predictions (predictor, config_hash, prefix_hash, state_id, probabilities, tags, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const now = new Date().toISOString();
  inTransaction(db, () => {
    for (const [state, p] of entries) {
      insert.run(
        predictor.id,
        predictor.configHash,
        state.prefixHash,
        state.id,
        JSON.stringify(p.probabilities),
        p.tags === undefined ? null : JSON.stringify(p.tags),
        now,
      );
    }
  });
}

/**
 * Predictions for `states`, calling the backend only for distinct prefixes not yet cached
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
  for (const s of states) if (!distinct.has(s.prefixHash)) distinct.set(s.prefixHash, s);
  const known = readCachedPredictions(db, predictor, [...distinct.keys()]);
  const hits = known.size;
  const missing = [...distinct.values()].filter((s) => !known.has(s.prefixHash));
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
      return [s, answers[i]] as const;
    });
    writeCachedPredictions(db, predictor, entries);
    for (const [s, p] of entries) known.set(s.prefixHash, p);
    options.onProgress?.(`${Math.min(start + batch.length, missing.length)}/${missing.length} states predicted`, true);
  }
  return {
    predictions: states.map((s) => known.get(s.prefixHash) as Prediction),
    hits,
    computed: missing.length,
  };
}

/** A StatePredictions that goes through the cache of `db` (what cal:SPEC asks its inner predictor with). */
export function cachedStatePredictions(
  db: SchedlabDatabase,
): (predictor: Predictor, states: readonly State[]) => Promise<Prediction[]> {
  return async (predictor, states) => (await predictWithCache(db, predictor, states)).predictions;
}
