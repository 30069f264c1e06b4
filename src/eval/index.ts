// The evaluation stage (docs/metrics.md): evaluate/compare over states and samples, the
// scoring of leave-family-out cross-validation (src/cv trains and runs it), and storage of
// results for reports.
export { evaluate, MIN_SAMPLES_FOR_ENTROPY } from "./evaluate.js";
export { compare, programAccuracy, programLeads, PROGRAM_LEAD_MARGIN } from "./compare.js";
export {
  addProgramSample,
  emptyProgramSums,
  familyFigures,
  sampleConcentration,
  weightedFigures,
  type FamilyFigure,
  type ProgramSums,
  type SampleConcentration,
  type UnitMeans,
  type WeightedFigures,
} from "./weighted.js";
export {
  saveEvaluation,
  loadEvaluation,
  listEvaluations,
  evaluationExists,
  type StoredEvaluation,
  type EvaluationSummary,
} from "./store.js";
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
  ProgramAccuracy,
  ProgramLead,
  ProgramLeads,
  SampleScores,
} from "./types.js";
export { EVAL_JSON_VERSION } from "./types.js";
export { runEvaluation } from "./from-database.js";
export type { EvaluationRun, EvaluationRunOptions, PredictorFailure } from "./from-database.js";
export {
  assignFolds,
  conformalThresholdOfStates,
  crossValidationScores,
  familyWeights,
  familyWeightsOfCounts,
  foldColumns,
  foldColumnsOf,
  joinFoldColumns,
  foldsBySource,
  poolFolds,
  sourceOf,
  probabilityColumn,
  pooledMajorityClass,
  CONFORMAL_COVERAGE,
  CV_REFERENCE,
  DEFAULT_CV_FOLDS,
  FOLD_GROUPINGS,
} from "./cv.js";
export type {
  CrossValidatedPredictor,
  CrossValidationScores,
  FamilyWeight,
  FoldAnswers,
  FoldAssignment,
  FoldColumns,
  FoldGrouping,
  FoldPredictions,
  PooledFolds,
  ProbabilityColumn,
  ReferenceDifference,
} from "./cv.js";
