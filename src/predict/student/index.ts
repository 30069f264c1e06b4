// The student predictor's inference: a saved adapter loaded and checked, the prefix features
// it reads, its network's forward pass and its calibration. src/train fits and saves adapters
// from these same pieces, so training and inference cannot disagree about a feature or a model.
export { loadStudentPredictor, type StudentPredictorOptions } from "./predictor.js";
export { loadAdapter, loadedNgram, AdapterError, ADAPTER_FILES, type LoadedAdapter } from "./adapter.js";
export {
  FEATURE_SPEC,
  EXPERT_SKIP_COLUMNS,
  FEATURE_COUNT,
  FEATURE_VERSION,
  NO_FEATURE_INPUTS,
  prefixFeatures,
  featurizePrefixes,
  newPrefixFeaturizer,
  type FeatureInputs,
  type FeatureRows,
  type FeatureSpec,
} from "./features.js";
export { staticFeaturesOf, STATIC_FEATURE_KEYS, StaticFeaturesError, type StaticFeatures } from "./static-features.js";
export { TAG_CLASSES, tagOfReason, type TagClass } from "./tags.js";
export {
  ACTIVATIONS,
  MODEL_KINDS,
  addSkip,
  denseHead,
  forward,
  modelLayout,
  newWorkspace,
  skipColumns,
  type Activation,
  type ModelKind,
  type ModelLayout,
  type ModelShape,
  type Workspace,
} from "./model.js";
export {
  atContext,
  calibrateRow,
  expertInto,
  FEASIBILITY_RULES,
  type ContextTemperature,
  type FeasibilityRule,
  type StudentCalibration,
} from "./calibration.js";
export {
  DEFAULT_CONFIDENCE_EVIDENCE,
  DEFAULT_EXPERT_EVIDENCE,
  confidenceTrajectory,
  expertShares,
  prefixEvidence,
  shareTrajectory,
  studentExpertShares,
  withEarned,
  LIKELIHOOD_FLOOR,
  type ConfidenceEvidence,
  type EarnedShares,
  type ExpertEvidence,
  type PrefixEvidence,
  type RunLikelihoods,
  type StudentDistribution,
} from "./evidence.js";
export { clipNonZero, networkReader, type NetworkReader, type StudentNetwork } from "./inference.js";
export type { SavedNgram, StudentFeatureFile, StudentWeights } from "./types.js";
