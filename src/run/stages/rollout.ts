// Stage rollout: the selected student (or ngram:3 without one) rolled out from prefixes of
// one split's test side, checked by the goroutine state machine: once greedy (temperature 0,
// its most probable event every step) and `samples` times sampled at temperature 1.

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
  /** The sampled rollout run, then the greedy one. */
  readonly rolloutRunIds: readonly number[];
  readonly summary: RolloutSummary;
}

export function rolloutStage(name: string): StageDescriptor<RolloutInput, RolloutOutput> {
  return {
    name,
    optional: true,
    work: async (input, say, context) => {
      const rollOut = async (temperature: number, samples: number) => {
        const report = await runRollouts(context.db, {
          predictor: input.spec,
          abstraction: input.data.abstraction,
          data: input.data,
          steps: input.steps,
          samples,
          temperature,
          prefixes: input.prefixes,
          seed: 1,
          onProgress: (message) => say(`${temperature === 0 ? "greedy" : "sampled"}: ${message}`, true),
        });
        return { id: saveRolloutReport(context.db, report), o: report.overall, report };
      };
      const sampled = await rollOut(1, input.samples);
      const greedy = await rollOut(0, 1);
      const summary: RolloutSummary = {
        predictor: input.shownAs,
        steps: input.steps,
        meanSurvival: sampled.o.meanSurvival,
        kStepAccuracy: sampled.o.kStepAccuracy,
        reachedK: sampled.o.reachedK,
        greedy: {
          meanSurvival: greedy.o.meanSurvival,
          kStepAccuracy: greedy.o.kStepAccuracy,
          reachedK: greedy.o.reachedK,
        },
      };
      return {
        output: { rolloutRunIds: [sampled.id, greedy.id], summary },
        note:
          `${input.shownAs}: mean survival ${greedy.o.meanSurvival.toFixed(2)} ` +
          `greedy, ${sampled.o.meanSurvival.toFixed(2)} sampled, ` +
          `of ${input.steps} steps over ${sampled.report.prefixes.length} prefixes`,
      };
    },
    stillValid: (output, context) =>
      output.rolloutRunIds !== undefined && output.rolloutRunIds.every((id) => rolloutRunExists(context.db, id)),
  };
}
