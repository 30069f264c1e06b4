// The train stage: student models fitted in TypeScript on the prefix features of
// src/predict/student and saved as adapters, which the `student:` predictor loads back.
export { trainOnSplit } from "./train.js";
export { classWeights } from "./weighting.js";
export { tagsOfSamples } from "./rows.js";
export { cardMarkdown } from "./card.js";
export { saveAdapter } from "./save-adapter.js";
export { trainFromDatabase, type TrainFromDatabaseOptions } from "./from-database.js";
export { CALIBRATION_MODES, type CalibrationMode } from "./calibration.js";
export { tagTargetOfPrefix } from "./tags.js";
export { cardMetrics, type CardMetrics } from "./card-metrics.js";
export * from "./types.js";
