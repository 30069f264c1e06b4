// predictDataset(): run one predictor over the states of a database's programs (the test
// split of a holdout by default), through the prediction cache, so the predictions can
// be inspected or exported as a replay file. Fitted baselines train on the training split.

import {
  loadSplitData,
  samplesWithPrefixes,
  trainingSide,
  type Abstraction,
  type LoadSplitOptions,
  type State,
} from "../dataset/index.js";
import { UsageError } from "../errors.js";
import type { SchedlabDatabase } from "../store/index.js";
import { cachedStatePredictions, predictWithCache } from "./cache.js";
import { createPredictor, type PredictorSettings } from "./registry.js";
import type { Prediction } from "./types.js";
import type { Progress } from "../progress.js";

export const PREDICT_SPLITS = ["test", "train", "all"] as const;
export type PredictSplit = (typeof PREDICT_SPLITS)[number];

export interface PredictDatasetOptions extends LoadSplitOptions {
  readonly predictor: string;
  /** Whose states to predict: the held-out programs (default), the training programs, or all. */
  readonly split?: PredictSplit;
  /** Passed to the predictor (base URL, concurrency, timeout, download permission …). */
  readonly context?: PredictorSettings;
  readonly batchSize?: number;
  /** Progress messages, one line each (e.g. for stderr). */
  readonly onProgress?: Progress;
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

export async function predictDataset(db: SchedlabDatabase, options: PredictDatasetOptions): Promise<PredictedDataset> {
  const split = options.split ?? "test";
  if (!(PREDICT_SPLITS as readonly string[]).includes(split)) {
    throw new UsageError(`unknown split ${JSON.stringify(split)}`, `Use --split ${PREDICT_SPLITS.join(" | ")}.`);
  }
  const progress = options.onProgress ?? (() => {});
  const data = loadSplitData(db, options);
  const holdout = data.split;
  // Train and test states are pooled separately (as export does), so a pooled state can appear on both sides.
  const sides =
    split === "test" ? [data.test] : split === "train" ? [trainingSide(data)] : [trainingSide(data), data.test];
  const states = sides.flatMap((side) => side.states);
  const programs =
    split === "test" ? holdout.test : split === "train" ? holdout.train : [...holdout.train, ...holdout.test];
  if (programs.length === 0) {
    throw new UsageError(
      `the ${split} split of holdout ${holdout.spec} has no programs (${holdout.description})`,
      "Collect and ingest programs first, or pass another --holdout or --split.",
    );
  }
  progress(
    `${options.abstraction}: ${states.length} states of ${programs.length} ${split} programs; ` +
      `fitted predictors train on ${data.fit.programs.length} programs, cal: ` +
      `calibrates on ${data.validation.programs.length}`,
  );
  const predictor = await createPredictor(options.predictor, {
    ...options.context,
    training: { samples: samplesWithPrefixes(data.fit), states: data.fit.states },
    validation: data.validation.states,
    predictStates: cachedStatePredictions(db),
  });
  const answered = await predictWithCache(db, predictor, states, {
    batchSize: options.batchSize,
    onProgress: (message, transient) => progress(`${options.predictor}: ${message}`, transient),
  });
  return {
    predictor: { id: predictor.id, configHash: predictor.configHash },
    abstraction: options.abstraction,
    holdout: holdout.spec,
    split,
    programs,
    trainPrograms: holdout.train,
    states,
    predictions: answered.predictions,
    hits: answered.hits,
    computed: answered.computed,
  };
}
