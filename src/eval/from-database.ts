// runEvaluation(): the whole `schedlab eval` pipeline over a database — load the split
// (or take it loaded), fit predictors on its fit side and calibrate cal:SPEC on its
// validation side, query them on its test side through the prediction cache, evaluate,
// store. The CLI is a thin layer over this.

import {
  cappedLine,
  samplesWithPrefixes,
  splitDataOf,
  splitSampleCap,
  type SampleCapReport,
  type SplitSource,
} from "../dataset/index.js";
import {
  cachedStatePredictions,
  createPredictor,
  predictWithCache,
  type PredictorContext,
  type PredictorSettings,
} from "../predict/index.js";
import { SchedlabError, UsageError } from "../errors.js";
import type { SchedlabDatabase } from "../store/index.js";
import { EVENT_TYPES } from "../core/index.js";
import { EvaluationInputError } from "./errors.js";
import { evaluate } from "./evaluate.js";
import { DEFAULT_RESAMPLES, majorityLabel } from "../metrics/index.js";
import { saveEvaluation } from "./store.js";
import type { EvaluationResult, PredictorOutput } from "./types.js";
import type { Progress } from "../progress.js";

export interface EvaluationRunOptions extends SplitSource {
  /** Predictor specs, e.g. ["majority", "ngram:3", "openai:qwen-7b"]; at least one. */
  readonly predictors: readonly string[];
  /** Passed to every predictor (base URL, concurrency, download permission …). */
  readonly predictorContext?: PredictorSettings;
  readonly bootstrapResamples?: number;
  readonly bootstrapSeed?: number;
  /** Store the result in eval_runs/eval_results (default true). */
  readonly store?: boolean;
  /**
   * Progress messages, one line each (e.g. for stderr). `transient` marks per-batch
   * counters that a terminal may overwrite in place and a log may skip.
   */
  readonly onProgress?: Progress;
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
  /** The per-program sample cap the split was loaded under, and the programs it capped (fit, validation, test). */
  readonly sampleCap: SampleCapReport;
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
    throw new UsageError(
      "no predictor given",
      "Pass at least one --predictor, e.g. --predictor majority --predictor ngram:3.",
    );
  }
  const duplicate = options.predictors.find((p, i) => options.predictors.indexOf(p) !== i);
  if (duplicate !== undefined)
    throw new UsageError(`predictor ${duplicate} is given twice`, "Give each --predictor once.");
  const progress = (message: string, transient = false): void => options.onProgress?.(message, transient);

  const data = splitDataOf(db, options);
  const split = data.split;
  if (split.test.length === 0) {
    throw new EvaluationInputError(
      `holdout ${split.spec} selects no test programs (${split.description})`,
      "Collect more programs, or pass --holdout with a spec that matches some, e.g. dir:PREFIX or list:a,b.",
    );
  }
  progress(
    `holdout ${split.spec}: ${data.fit.programs.length} training programs (${split.families.train - split.families.validation} families), ` +
      `${data.validation.programs.length} validation (${split.families.validation} families), ${split.test.length} test (${split.families.test} families)`,
  );
  const test = data.test;
  if (test.samples.length === 0) {
    throw new EvaluationInputError(
      `the ${split.test.length} test programs have no ${data.abstraction} samples (no ingested events)`,
      "Run `schedlab collect` (and ingest) on them first, or choose another --holdout.",
    );
  }
  const sampleCap = splitSampleCap(data);
  progress(cappedLine(sampleCap));
  progress(
    `${data.abstraction}: ${data.fit.states.length} training states, ${data.validation.states.length} ` +
      `validation states, ${test.states.length} test states, ${test.samples.length} test samples`,
  );

  const trainingSamples = samplesWithPrefixes(data.fit);
  const majority =
    trainingSamples.length === 0
      ? undefined
      : EVENT_TYPES[
          majorityLabel(
            trainingSamples.map((s) => EVENT_TYPES.indexOf(s.next)),
            EVENT_TYPES.length,
          )
        ];
  const context: PredictorContext = {
    ...options.predictorContext,
    training: { samples: trainingSamples, states: data.fit.states },
    validation: data.validation.states,
    predictStates: cachedStatePredictions(db),
  };
  const outputs: PredictorOutput[] = [];
  const failures: PredictorFailure[] = [];
  const cache: { predictor: string; hits: number; computed: number }[] = [];
  for (const spec of options.predictors) {
    try {
      const predictor = await createPredictor(spec, context);
      const answered = await predictWithCache(db, predictor, test.states, {
        onProgress: (message, transient) => progress(`${spec}: ${message}`, transient),
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
    abstraction: data.abstraction,
    holdout: `${split.spec} (${split.description})`,
    majorityClass: majority,
    familyOf: (program) => split.familyOf[program] ?? program,
    bootstrapResamples: options.bootstrapResamples,
    bootstrapSeed: options.bootstrapSeed,
  });
  const id =
    options.store === false
      ? null
      : saveEvaluation(db, result, {
          predictors: options.predictors,
          abstraction: data.abstraction,
          holdout: split.spec,
          ...(split.trainOn === undefined ? {} : { trainOn: split.trainOn }),
          families: split.families,
          trainPrograms: split.train,
          validationPrograms: split.validation,
          testPrograms: split.test,
          failures,
          bootstrapResamples: options.bootstrapResamples ?? DEFAULT_RESAMPLES,
          bootstrapSeed: options.bootstrapSeed ?? 1,
        });
  return { id, result, failures, trainPrograms: split.train, testPrograms: split.test, cache, sampleCap };
}
