// runFidelity(): the `schedlab fidelity` pipeline over a database — split programs, build
// the test states, query teacher and student through the prediction cache, check the
// four relations. The CLI is a thin layer over this.

import { samplesWithPrefixes, splitDataOf, type Abstraction, type SplitSource } from "../dataset/index.js";
import {
  cachedStatePredictions,
  createPredictor,
  predictWithCache,
  type PredictorContext,
  type PredictorSettings,
} from "../predict/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { FidelityInputError } from "./errors.js";
import { checkFidelity } from "./relations.js";
import type { FidelityOptions, FidelityResult } from "./types.js";
import type { Progress } from "../progress.js";

export interface FidelityRunOptions extends FidelityOptions, SplitSource {
  /** Predictor spec of the teacher, e.g. "ngram:3" or "openai:qwen-7b". */
  readonly teacher: string;
  /** Predictor spec of the student, e.g. "student:adapters/kl". */
  readonly student: string;
  readonly predictorContext?: PredictorSettings;
  readonly onProgress?: Progress;
}

export interface FidelityRun {
  readonly abstraction: Abstraction;
  /** The resolved holdout, e.g. "list:fanout (1 program)". */
  readonly holdout: string;
  readonly testPrograms: readonly string[];
  readonly result: FidelityResult;
}

/**
 * Checks teacher against student on the test split of `holdout` under `abstraction`.
 * Fitted predictors (majority, ngram) see only the training split. Unlike eval, a
 * failing predictor stops the run: there is nothing to compare without both.
 */
export async function runFidelity(db: SchedlabDatabase, options: FidelityRunOptions): Promise<FidelityRun> {
  const progress: Progress = (message, transient) => options.onProgress?.(message, transient);
  const data = splitDataOf(db, options);
  const split = data.split;
  if (split.test.length === 0) {
    throw new FidelityInputError(
      `holdout ${split.spec} selects no test programs (${split.description})`,
      "Collect more programs, or pass --holdout with a spec that matches some, e.g. dir:PREFIX or list:a,b.",
    );
  }
  const test = data.test;
  if (test.samples.length === 0) {
    throw new FidelityInputError(
      `the ${split.test.length} test programs have no ${data.abstraction} samples`,
      "Run `schedlab collect` (and ingest) on them first, or choose another --holdout.",
    );
  }
  progress(`${data.abstraction}: ${test.states.length} test states from ${split.test.length} programs`);
  const context: PredictorContext = {
    ...options.predictorContext,
    training: { samples: samplesWithPrefixes(data.fit), states: data.fit.states },
    validation: data.validation.states,
    predictStates: cachedStatePredictions(db),
  };
  const outputs = [];
  for (const spec of [options.teacher, options.student]) {
    const predictor = await createPredictor(spec, context);
    const answered = await predictWithCache(db, predictor, test.states);
    progress(`${spec}: ${answered.hits} cached, ${answered.computed} computed`);
    outputs.push({ name: spec, configHash: predictor.configHash, predictions: answered.predictions });
  }
  const result = checkFidelity(test.states, test.samples, outputs[0]!, outputs[1]!, options);
  return {
    abstraction: data.abstraction,
    holdout: `${split.spec} (${split.description})`,
    testPrograms: split.test,
    result,
  };
}
