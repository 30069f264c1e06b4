// The predict stage: predictor backends behind one interface, the factory that builds
// them from a spec, and the SQLite prediction cache.
export type { EventProbabilities, Prediction, Predictor, ReasoningTags, StudentLoader } from "./types.js";
export { createPredictor, parsePredictorSpec, PREDICTOR_SPECS } from "./create.js";
export type { PredictorContext, PredictorSettings } from "./create.js";
export type { TrainingData } from "./baselines.js";
export { cachedStatePredictions, predictWithCache, readCachedPredictions, writeCachedPredictions } from "./cache.js";
export { calibratedPredictor, calibrateProbabilities, fitPredictorCalibration, stateTargets } from "./calibrated.js";
export type { StatePredictions } from "./calibrated.js";
export { calibrateInPlace, fitCalibration, fitTemperature, logitsOfProbabilities, nllOfLogits, softmaxInPlace, temperatureOnly } from "./calibration.js";
export type { Calibration, CalibrationTargets } from "./calibration.js";
export type { CachedPredictions, PredictWithCacheOptions } from "./cache.js";
export { writeReplayFile, parseReplayText } from "./replay.js";
export type { ReplayEntry, ReplayLine } from "./replay.js";
export { renderStatePrompt, PROMPT_VERSION } from "./prompt.js";
export { probabilityVectorProblem, normalizeWeights, softmax, uniformProbabilities, argmax } from "./probabilities.js";
export * from "./errors.js";
export { predictDataset, PREDICT_SPLITS } from "./from-database.js";
export type { PredictDatasetOptions, PredictedDataset, PredictSplit } from "./from-database.js";
