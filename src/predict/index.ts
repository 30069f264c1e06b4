// The predict stage: predictor backends behind one interface (student inference included),
// the registry that builds them from a spec, and the SQLite prediction cache.
export type { EventProbabilities, Prediction, Predictor, PredictorOutput, ReasoningTags } from "./types.js";
export { createPredictor, parsePredictorSpec, PREDICTOR_SPECS } from "./registry.js";
export type { PredictorContext, PredictorSettings } from "./registry.js";
export { fitNgram, type NgramModel, type TrainingData } from "./baselines.js";
export { cachedStatePredictions, predictWithCache, readCachedPredictions, writeCachedPredictions } from "./cache.js";
export { calibratedPredictor, calibrateProbabilities, fitPredictorCalibration, stateTargets } from "./calibrated.js";
export type { StatePredictions } from "./calibrated.js";
export {
  calibrateInPlace,
  fitCalibration,
  fitOverPriorWeights,
  fitTemperature,
  goldenTemperature,
  logitsOfProbabilities,
  nllOf,
  nllOfLogits,
  softmaxInPlace,
  temperatureOnly,
} from "./calibration.js";
export type { Calibration, CalibrationTargets } from "./calibration.js";
export type { CachedPredictions, PredictWithCacheOptions } from "./cache.js";
export { writeReplayFile, parseReplayText } from "./replay.js";
export type { ReplayEntry, ReplayLine } from "./replay.js";
export { renderStatePrompt, PROMPT_VERSION } from "./prompt.js";
export { probabilityVectorProblem, normalizeWeights, softmax, uniformProbabilities, argmax } from "./probabilities.js";
export * from "./errors.js";
export { predictDataset, PREDICT_SPLITS } from "./from-database.js";
export type { PredictDatasetOptions, PredictedDataset, PredictSplit } from "./from-database.js";
export * from "./student/index.js";
