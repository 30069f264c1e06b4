// Stage cv: leave-family-out cross-validation of the pipeline's students and baselines over the
// whole corpus (src/cv), so the report shows, beside the one holdout, a
// scoreboard where every program is tested once. Fold students are cached under
// ADAPTERS/cv/<hash> and reused by a later run on the same data.

import type { Abstraction } from "../../dataset/index.js";
import { runCrossValidation } from "../../cv/index.js";
import { crossValidationBoard, type CrossValidationBoard } from "../../report/index.js";
import type { StageDescriptor } from "../stage.js";

export interface CvInput {
  /** Fingerprint of the ingested data (ingestedDataHash): new or re-ingested runs redo the stage. */
  readonly data: string;
  readonly folds: number;
  readonly abstractions: readonly Abstraction[];
  /** Predictor specs; students as recipes (student:kl), trained in every fold. */
  readonly predictors: readonly string[];
  readonly model: "logreg" | "mlp";
  readonly epochs: number;
  readonly resamples: number;
  /** Root of the fold students (ADAPTERS/cv/…). */
  readonly adapters: string;
}

export const cvStage: StageDescriptor<CvInput, CrossValidationBoard> = {
  name: "cv",
  optional: true,
  work: async (input, say, context) => {
    const run = await runCrossValidation(context.db, {
      predictors: input.predictors,
      abstractions: input.abstractions,
      folds: input.folds,
      adapters: input.adapters,
      force: context.settings.force,
      student: { model: input.model, epochs: input.epochs },
      bootstrapResamples: input.resamples,
      onProgress: (message, transient) => say(message, transient),
    });
    const failures = run.abstractions.flatMap((a) =>
      a.failures.map((f) => `cv ${a.abstraction}: predictor ${f.predictor} failed: ${f.message}`),
    );
    context.warnings.push(...failures);
    const board = crossValidationBoard(run);
    const note = board.abstractions
      .map(
        (a) =>
          `${a.abstraction} ${a.seconds.toFixed(0)} s (${a.studentsTrained} students trained, ${a.studentsReused} reused)`,
      )
      .join(", ");
    return { output: board, note: `${input.folds} folds: ${note}` };
  },
};
