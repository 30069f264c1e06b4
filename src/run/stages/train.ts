// Stage train: the pipeline's students (recipes as `eval --cv` names them: kl, kl-tags, …) trained
// on one split's fit side, stopped early and calibrated on its validation families, each saved
// under the adapters dir.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { pct } from "../../core/index.js";
import type { SplitData } from "../../dataset/index.js";
import { trainFromDatabase } from "../../train/index.js";
import { recipeTrainOptions, type StudentRecipe } from "../../cv/index.js";
import type { StageDescriptor } from "../stage.js";

export interface TrainInput {
  readonly data: SplitData;
  readonly students: readonly StudentRecipe[];
  readonly model: "logreg" | "mlp";
  readonly epochs: number;
  /** Adapter directory of each student, in the order of `students`. */
  readonly adapterDirs: readonly string[];
}

export interface TrainedStudentOutput {
  readonly name: string;
  readonly path: string;
  /** Accuracy on the validation families after calibration (what `run` selects its best student by). */
  readonly validationAccuracy: number | null;
}

export interface TrainOutput {
  readonly students: readonly TrainedStudentOutput[];
  readonly failures: readonly string[];
}

export function trainStage(name: string): StageDescriptor<TrainInput, TrainOutput> {
  return {
    name,
    work: async (input, say, context) => {
      const students: TrainedStudentOutput[] = [];
      const failures: string[] = [];
      for (const [i, recipe] of input.students.entries()) {
        const out = input.adapterDirs[i]!;
        try {
          const result = await trainFromDatabase(context.db, {
            ...recipeTrainOptions(recipe),
            objective: recipe.objective,
            abstraction: input.data.abstraction,
            model: input.model,
            epochs: input.epochs,
            data: input.data,
            out,
            onProgress: (line) => say(`${recipe.name}: ${line}`, true),
          });
          const validation = result.card.validation?.accuracy ?? null;
          students.push({ name: recipe.name, path: out, validationAccuracy: validation });
          const h = result.card.holdout;
          say(`${recipe.name}: validation accuracy ${pct(validation)}${h === null ? "" : `, test ${pct(h.accuracy)}`}`);
        } catch (error) {
          failures.push(`${name} ${recipe.name}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      context.warnings.push(...failures);
      return {
        output: { students, failures },
        note: `${students.map((s) => s.name).join(", ") || "no students"} (${input.model})`,
      };
    },
    stillValid: (output) => output.students.every((s) => existsSync(join(s.path, "card.json"))),
  };
}
