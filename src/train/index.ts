// The train stage: student models fitted in TypeScript on the prefix features of
// src/predict/student and saved as adapters, which the `student:` predictor loads back.
export { trainStudent, trainOnSplit, splitPrograms, classWeights, statesAndSamples, tagsOfSamples } from "./train.js";
export { trainFromDatabase, type TrainFromDatabaseOptions } from "./from-database.js";
export { saveAdapter, cardMarkdown } from "./adapter.js";
export { CALIBRATION_MODES, type CalibrationMode } from "./calibration.js";
export { tagTargetOfPrefix } from "./tags.js";
export { cardMetrics, type CardMetrics } from "./card-metrics.js";
export * from "./types.js";
