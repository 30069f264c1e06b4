// Stage eval: the baselines and the students scored on one split's test side (the
// in-distribution holdout, or one test corpus), stored as an eval run.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SplitData } from "../../dataset/index.js";
import { runEvaluation, evaluationExists } from "../../eval/index.js";
import { contentHash } from "../store.js";
import type { StageDescriptor } from "../stage.js";

export interface EvalInput {
  readonly data: SplitData;
  readonly specs: readonly string[];
  /** Hash of each student adapter's card, so a retrained student reruns eval. */
  readonly adapters: readonly string[];
  readonly resamples: number;
}

export interface EvalOutput {
  readonly evalRunId: number;
  readonly failures: readonly string[];
}

/** Hash of an adapter's saved card, so a retrained student invalidates eval and rollout. */
export function adapterHash(dir: string): string {
  const card = join(dir, "card.json");
  return existsSync(card) ? contentHash(readFileSync(card, "utf8")) : "missing";
}

export function evalStage(name: string): StageDescriptor<EvalInput, EvalOutput> {
  return {
    name,
    work: async (input, say, context) => {
      const run = await runEvaluation(context.db, {
        predictors: input.specs,
        abstraction: input.data.abstraction,
        data: input.data,
        bootstrapResamples: input.resamples,
        onProgress: (message, transient) => say(message, transient),
      });
      const failures = run.failures.map((f) => `${name}: predictor ${f.predictor} failed: ${f.message}`);
      context.warnings.push(...failures);
      return {
        output: { evalRunId: run.id ?? 0, failures },
        note: `eval run ${run.id}: ${run.result.predictors.length} predictors on ${run.testPrograms.length} test programs`,
      };
    },
    stillValid: (output, context) => evaluationExists(context.db, output.evalRunId),
  };
}
