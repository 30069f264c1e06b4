// runEvaluation(): the whole `schedlab eval` pipeline over a database — split programs,
// build train and test datasets, fit and query predictors (through the prediction
// cache), evaluate, store. The CLI is a thin layer over this.

import { buildDataset, resolveHoldout, type Abstraction, type RunRecords, type Sample, type SampleRow } from "../dataset/index.js";
import { createPredictor, predictWithCache, type PredictorContext } from "../predict/index.js";
import { SchedlabError, UsageError } from "../errors.js";
import type { SchedlabDatabase } from "../store/index.js";
import { EVENT_TYPES } from "../trace/types.js";
import { EvaluationInputError } from "./errors.js";
import { evaluate } from "./evaluate.js";
import { majorityLabel } from "./metrics/majorityAccuracy.js";
import { saveEvaluation } from "./store.js";
import type { EvaluationResult, PredictorOutput } from "./types.js";

export interface EvaluationRunOptions {
  /** Predictor specs, e.g. ["majority", "ngram:3", "openai:qwen-7b"]; at least one. */
  readonly predictors: readonly string[];
  readonly abstraction: Abstraction;
  /** A --holdout spec (see resolveHoldout); the default stratified hash split when absent. */
  readonly holdout?: string;
  /** Passed to every predictor (base URL, concurrency, download permission …). */
  readonly predictorContext?: Omit<PredictorContext, "training">;
  readonly bootstrapResamples?: number;
  readonly bootstrapSeed?: number;
  /** Store the result in eval_runs/eval_results (default true). */
  readonly store?: boolean;
  /**
   * Progress messages, one line each (e.g. for stderr). `transient` marks per-batch
   * counters that a terminal may overwrite in place and a log may skip.
   */
  readonly onProgress?: (message: string, transient: boolean) => void;
}

/** A predictor that could not be built or queried; the others are still evaluated. */
export interface PredictorFailure {
  readonly predictor: string;
  readonly message: string;
  readonly hint: string;
}

export interface EvaluationRun {
  /** Id in eval_runs, or null when not stored. */
  readonly id: number | null;
  readonly result: EvaluationResult;
  readonly failures: readonly PredictorFailure[];
  readonly trainPrograms: readonly string[];
  readonly testPrograms: readonly string[];
  /** How many predictions came from the cache and how many were computed, per predictor. */
  readonly cache: readonly { readonly predictor: string; readonly hits: number; readonly computed: number }[];
}

/** Samples with their prefixes, as fitted predictors train on them. */
function withPrefixes(rows: readonly SampleRow[], runs: ReadonlyMap<number, RunRecords>): Sample[] {
  const samples: Sample[] = [];
  for (const row of rows) {
    const run = runs.get(row.runId);
    if (run === undefined) continue;
    samples.push({
      stateId: row.stateId,
      next: row.next,
      prefix: { program: run.program, runId: run.runId, procs: run.procs, records: run.records, end: row.end, goroutines: run.goroutines },
    });
  }
  return samples;
}

function failureOf(predictor: string, error: unknown): PredictorFailure {
  if (error instanceof SchedlabError) return { predictor, message: error.message, hint: error.hint };
  return {
    predictor,
    message: error instanceof Error ? error.message : String(error),
    hint: "This looks like a bug in the predictor backend; report it with the predictor spec.",
  };
}

/**
 * Evaluates every predictor on the test split of `holdout` under `abstraction`. Fitted
 * predictors see only the training split. A predictor that fails (bad spec, endpoint
 * down, invalid output) is reported in `failures` and the others are still scored;
 * if all fail, the first failure is thrown.
 */
export async function runEvaluation(db: SchedlabDatabase, options: EvaluationRunOptions): Promise<EvaluationRun> {
  if (options.predictors.length === 0) {
    throw new UsageError("no predictor given", "Pass at least one --predictor, e.g. --predictor majority --predictor ngram:3.");
  }
  const duplicate = options.predictors.find((p, i) => options.predictors.indexOf(p) !== i);
  if (duplicate !== undefined) throw new UsageError(`predictor ${duplicate} is given twice`, "Give each --predictor once.");
  const progress = (message: string, transient = false): void => options.onProgress?.(message, transient);

  const split = resolveHoldout(db, options.holdout);
  if (split.test.length === 0) {
    throw new EvaluationInputError(
      `holdout ${split.spec} selects no test programs (${split.description})`,
      "Collect more programs, or pass --holdout with a spec that matches some, e.g. dir:PREFIX or list:a,b.",
    );
  }
  progress(`holdout ${split.spec}: ${split.train.length} training and ${split.test.length} test programs`);
  const train = buildDataset(db, { abstraction: options.abstraction, programs: split.train });
  const test = buildDataset(db, { abstraction: options.abstraction, programs: split.test });
  if (test.samples.length === 0) {
    throw new EvaluationInputError(
      `the ${split.test.length} test programs have no ${options.abstraction} samples (no ingested events)`,
      "Run `schedlab collect` (and ingest) on them first, or choose another --holdout.",
    );
  }
  progress(`${options.abstraction}: ${train.states.length} training states, ${test.states.length} test states, ${test.samples.length} test samples`);

  const trainingSamples = withPrefixes(train.samples, train.runs);
  const majority = trainingSamples.length === 0 ? undefined : EVENT_TYPES[majorityLabel(trainingSamples.map((s) => EVENT_TYPES.indexOf(s.next)), EVENT_TYPES.length)];
  const outputs: PredictorOutput[] = [];
  const failures: PredictorFailure[] = [];
  const cache: { predictor: string; hits: number; computed: number }[] = [];
  for (const spec of options.predictors) {
    try {
      const predictor = await createPredictor(spec, { ...options.predictorContext, training: { samples: trainingSamples, states: train.states } });
      const answered = await predictWithCache(db, predictor, test.states, {
        onProgress: (done, missing) => progress(`${spec}: ${done}/${missing} states predicted`, true),
      });
      outputs.push({ name: spec, configHash: predictor.configHash, predictions: answered.predictions });
      cache.push({ predictor: spec, hits: answered.hits, computed: answered.computed });
      progress(`${spec}: ${answered.hits} cached, ${answered.computed} computed`);
    } catch (error) {
      failures.push(failureOf(spec, error));
      progress(`${spec}: failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (outputs.length === 0) {
    const first = failures[0]!;
    throw new SchedlabError(`every predictor failed; ${first.predictor}: ${first.message}`, first.hint);
  }

  const result = evaluate(test.states, test.samples, outputs, {
    abstraction: options.abstraction,
    holdout: `${split.spec} (${split.description})`,
    majorityClass: majority,
    bootstrapResamples: options.bootstrapResamples,
    bootstrapSeed: options.bootstrapSeed,
  });
  const id =
    options.store === false
      ? null
      : saveEvaluation(db, result, {
          predictors: options.predictors,
          abstraction: options.abstraction,
          holdout: split.spec,
          trainPrograms: split.train,
          testPrograms: split.test,
          failures,
          bootstrapResamples: options.bootstrapResamples ?? 2000,
          bootstrapSeed: options.bootstrapSeed ?? 1,
        });
  return { id, result, failures, trainPrograms: split.train, testPrograms: split.test, cache };
}
