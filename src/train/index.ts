// The train stage: student models trained in TypeScript on features of the prefix, saved
// as adapters, and loaded back as the `student:` predictor.
export { trainOnSplit } from "./train.js";
export { classWeights } from "./weighting.js";
export { tagsOfSamples } from "./rows.js";
export { cardMarkdown } from "./card.js";
export { saveAdapter } from "./save-adapter.js";
export { trainFromDatabase, type TrainFromDatabaseOptions } from "./from-database.js";
export { loadAdapter, AdapterError, ADAPTER_FILES } from "./adapter.js";
export { loadStudentPredictor, type StudentPredictorOptions } from "./predictor.js";
export { FEATURE_SPEC, FEATURE_COUNT, FEATURE_VERSION, NO_FEATURE_INPUTS, prefixFeatures, featurizePrefixes, newPrefixFeaturizer, type FeatureInputs, type FeatureRows, type FeatureSpec } from "./features.js";
export { staticFeaturesOf, STATIC_FEATURE_KEYS, StaticFeaturesError, type StaticFeatures } from "./static-features.js";
export { TAG_CLASSES, tagTargetOfPrefix, type TagClass } from "./tags.js";
export { cardMetrics, type CardMetrics } from "./card-metrics.js";
export { MODEL_KINDS, type ModelKind } from "./model.js";
export * from "./types.js";
