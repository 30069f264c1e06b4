// runFidelity(): the `schedlab fidelity` pipeline over a database — split programs, build
// the test states, query teacher and student through the prediction cache, check the
// four relations. The CLI is a thin layer over this.

import { buildDataset, resolveHoldout, type Abstraction, type RunRecords, type Sample, type SampleRow } from "../dataset/index.js";
import { createPredictor, predictWithCache, type PredictorContext } from "../predict/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { FidelityInputError } from "./errors.js";
import { checkFidelity } from "./relations.js";
import type { FidelityOptions, FidelityResult } from "./types.js";

export interface FidelityRunOptions extends FidelityOptions {
  /** Predictor spec of the teacher, e.g. "ngram:3" or "openai:qwen-7b". */
  readonly teacher: string;
  /** Predictor spec of the student, e.g. "student:adapters/kl". */
  readonly student: string;
  readonly abstraction: Abstraction;
  /** A --holdout spec (see resolveHoldout); the default stratified hash split when absent. */
  readonly holdout?: string;
  readonly predictorContext?: Omit<PredictorContext, "training">;
  readonly onProgress?: (message: string) => void;
}

export interface FidelityRun {
  readonly abstraction: Abstraction;
  /** The resolved holdout, e.g. "list:fanout (1 program)". */
  readonly holdout: string;
  readonly testPrograms: readonly string[];
  readonly result: FidelityResult;
}

function withPrefixes(rows: readonly SampleRow[], runs: ReadonlyMap<number, RunRecords>): Sample[] {
  return rows.flatMap((row) => {
    const run = runs.get(row.runId);
    if (run === undefined) return [];
    return [{ stateId: row.stateId, next: row.next, prefix: { program: run.program, runId: run.runId, procs: run.procs, records: run.records, end: row.end, goroutines: run.goroutines } }];
  });
}

/**
 * Checks teacher against student on the test split of `holdout` under `abstraction`.
 * Fitted predictors (majority, ngram) see only the training split. Unlike eval, a
 * failing predictor stops the run: there is nothing to compare without both.
 */
export async function runFidelity(db: SchedlabDatabase, options: FidelityRunOptions): Promise<FidelityRun> {
  const progress = (message: string): void => options.onProgress?.(message);
  const split = resolveHoldout(db, options.holdout);
  if (split.test.length === 0) {
    throw new FidelityInputError(`holdout ${split.spec} selects no test programs (${split.description})`, "Collect more programs, or pass --holdout with a spec that matches some, e.g. dir:PREFIX or list:a,b.");
  }
  const train = buildDataset(db, { abstraction: options.abstraction, programs: split.train });
  const test = buildDataset(db, { abstraction: options.abstraction, programs: split.test });
  if (test.samples.length === 0) {
    throw new FidelityInputError(`the ${split.test.length} test programs have no ${options.abstraction} samples`, "Run `schedlab collect` (and ingest) on them first, or choose another --holdout.");
  }
  progress(`${options.abstraction}: ${test.states.length} test states from ${split.test.length} programs`);
  const training = { samples: withPrefixes(train.samples, train.runs), states: train.states };
  const outputs = [];
  for (const spec of [options.teacher, options.student]) {
    const predictor = await createPredictor(spec, { ...options.predictorContext, training });
    const answered = await predictWithCache(db, predictor, test.states);
    progress(`${spec}: ${answered.hits} cached, ${answered.computed} computed`);
    outputs.push({ name: spec, configHash: predictor.configHash, predictions: answered.predictions });
  }
  const result = checkFidelity(test.states, test.samples, outputs[0]!, outputs[1]!, options);
  return { abstraction: options.abstraction, holdout: `${split.spec} (${split.description})`, testPrograms: split.test, result };
}
