// predictDataset(): run one predictor over the states of a database's programs (the test
// split of a holdout by default), through the prediction cache, so the predictions can
// be inspected or exported as a replay file. Fitted baselines train on the training split.

import { buildDataset, resolveHoldout, type Abstraction, type RunRecords, type Sample, type SampleRow, type State } from "../dataset/index.js";
import { UsageError } from "../errors.js";
import type { SchedlabDatabase } from "../store/index.js";
import { predictWithCache } from "./cache.js";
import { createPredictor, type PredictorContext } from "./create.js";
import type { Prediction } from "./types.js";

export const PREDICT_SPLITS = ["test", "train", "all"] as const;
export type PredictSplit = (typeof PREDICT_SPLITS)[number];

export interface PredictDatasetOptions {
  readonly predictor: string;
  readonly abstraction: Abstraction;
  /** A --holdout spec (see resolveHoldout); the default stratified hash split when absent. */
  readonly holdout?: string;
  /** Whose states to predict: the held-out programs (default), the training programs, or all. */
  readonly split?: PredictSplit;
  /** Passed to the predictor (base URL, concurrency, timeout, download permission …). */
  readonly context?: Omit<PredictorContext, "training">;
  readonly batchSize?: number;
  /** Progress messages, one line each (e.g. for stderr). */
  readonly onProgress?: (message: string) => void;
}

export interface PredictedDataset {
  readonly predictor: { readonly id: string; readonly configHash: string };
  readonly abstraction: Abstraction;
  readonly holdout: string;
  readonly split: PredictSplit;
  readonly programs: readonly string[];
  readonly trainPrograms: readonly string[];
  readonly states: readonly State[];
  /** One per state, same order. */
  readonly predictions: readonly Prediction[];
  readonly hits: number;
  readonly computed: number;
}

/** Samples with their prefixes (no copying: a prefix is the run's records and an end index). */
function withPrefixes(rows: readonly SampleRow[], runs: ReadonlyMap<number, RunRecords>): Sample[] {
  const samples: Sample[] = [];
  for (const row of rows) {
    const run = runs.get(row.runId);
    if (run === undefined) continue;
    samples.push({ stateId: row.stateId, next: row.next, prefix: { program: run.program, runId: run.runId, procs: run.procs, records: run.records, end: row.end, goroutines: run.goroutines } });
  }
  return samples;
}

export async function predictDataset(db: SchedlabDatabase, options: PredictDatasetOptions): Promise<PredictedDataset> {
  const split = options.split ?? "test";
  if (!(PREDICT_SPLITS as readonly string[]).includes(split)) {
    throw new UsageError(`unknown split ${JSON.stringify(split)}`, `Use --split ${PREDICT_SPLITS.join(" | ")}.`);
  }
  const progress = options.onProgress ?? (() => {});
  const holdout = resolveHoldout(db, options.holdout);
  const programs = split === "test" ? holdout.test : split === "train" ? holdout.train : [...holdout.train, ...holdout.test];
  if (programs.length === 0) {
    throw new UsageError(
      `the ${split} split of holdout ${holdout.spec} has no programs (${holdout.description})`,
      "Collect and ingest programs first, or pass another --holdout or --split.",
    );
  }
  const train = holdout.train.length === 0 ? null : buildDataset(db, { abstraction: options.abstraction, programs: holdout.train });
  const target = buildDataset(db, { abstraction: options.abstraction, programs });
  progress(`${options.abstraction}: ${target.states.length} states of ${programs.length} ${split} programs; fitted predictors train on ${holdout.train.length} programs`);
  const training = train === null ? {} : { samples: withPrefixes(train.samples, train.runs), states: train.states };
  const predictor = await createPredictor(options.predictor, { ...options.context, training });
  const answered = await predictWithCache(db, predictor, target.states, {
    batchSize: options.batchSize,
    onProgress: (done, missing) => progress(`${options.predictor}: ${done}/${missing} states predicted`),
  });
  return {
    predictor: { id: predictor.id, configHash: predictor.configHash },
    abstraction: options.abstraction,
    holdout: holdout.spec,
    split,
    programs,
    trainPrograms: holdout.train,
    states: target.states,
    predictions: answered.predictions,
    hits: answered.hits,
    computed: answered.computed,
  };
}
