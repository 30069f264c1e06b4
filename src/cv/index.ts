// The cross-validation stage: leave-family-out CV over a whole corpus, training the requested
// students in every fold (src/train) and scoring the pooled folds (src/eval's cv.ts).
export { runCrossValidation } from "./from-database.js";
export type {
  CrossValidatedAbstraction,
  CrossValidationOptions,
  CrossValidationRun,
  CrossValidationStudentSettings,
  FoldSummary,
} from "./from-database.js";
export { parseStudentRecipe, recipeTrainOptions, studentRecipesOf, type StudentRecipe } from "./recipes.js";
