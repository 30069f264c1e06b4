// Stage rollout: the selected student (or ngram:3 without one) rolled out from prefixes of
// one split's test side, checked by the goroutine state machine.

import type { SplitData } from "../../dataset/index.js";
import { rolloutRunExists, runRollouts, saveRolloutReport } from "../../rollout/index.js";
import type { StageDescriptor } from "../stage.js";
import type { RolloutSummary } from "../types.js";

export interface RolloutInput {
  readonly data: SplitData;
  readonly spec: string;
  /** The name shown for it, e.g. "student:ce". */
  readonly shownAs: string;
  /** Hash of the student's card (null for a baseline). */
  readonly adapter: string | null;
  readonly steps: number;
  readonly samples: number;
  readonly prefixes: number;
}

export interface RolloutOutput {
  readonly rolloutRunId: number;
  readonly summary: RolloutSummary;
}

export function rolloutStage(name: string): StageDescriptor<RolloutInput, RolloutOutput> {
  return {
    name,
    optional: true,
    work: async (input, say, context) => {
      const report = await runRollouts(context.db, {
        predictor: input.spec,
        abstraction: input.data.abstraction,
        data: input.data,
        steps: input.steps,
        samples: input.samples,
        prefixes: input.prefixes,
        seed: 1,
        onProgress: (message) => say(message, true),
      });
      const rolloutRunId = saveRolloutReport(context.db, report);
      const o = report.overall;
      const summary: RolloutSummary = { predictor: input.shownAs, steps: report.steps, meanSurvival: o.meanSurvival, kStepAccuracy: o.kStepAccuracy, reachedK: o.reachedK };
      return { output: { rolloutRunId, summary }, note: `${input.shownAs}: mean survival ${o.meanSurvival.toFixed(2)}/${report.steps} steps over ${report.prefixes.length} prefixes` };
    },
    stillValid: (output, context) => rolloutRunExists(context.db, output.rolloutRunId),
  };
}
