// The evaluation stage (DESIGN §8): evaluate/compare over states and
// samples, leave-family-out cross-validation, and storage of results for reports.
export { evaluate, MIN_SAMPLES_FOR_ENTROPY } from "./evaluate.js";
export { compare } from "./compare.js";
export { saveEvaluation, loadEvaluation, listEvaluations, type StoredEvaluation, type EvaluationSummary } from "./store.js";
export { EvaluationInputError, NoEvaluationError } from "./errors.js";
export type {
  EvaluationContext,
  EvaluationResult,
  EvaluationSample,
  EntropyPoint,
  EventScores,
  PredictorComparison,
  PredictorEvaluation,
  PredictorOutput,
  SampleScores,
} from "./types.js";
export { assignFolds, crossValidationScores, familyWeights, parseStudentRecipe, poolFolds, pooledMajorityClass, studentRecipesOf, CV_REFERENCE, DEFAULT_CV_FOLDS } from "./cv.js";
export type { CrossValidatedPredictor, CrossValidationScores, FamilyWeight, FoldAssignment, FoldPredictions, PooledFolds, ReferenceDifference, StudentRecipe } from "./cv.js";
export { runCrossValidation } from "./cv-from-database.js";
export type { CrossValidatedAbstraction, CrossValidationOptions, CrossValidationRun, CrossValidationStudentSettings, FoldSummary } from "./cv-from-database.js";
