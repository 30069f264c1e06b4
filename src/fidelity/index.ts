// The fidelity stage (docs/fidelity.md): teacher/student output relations on the same states,
// and metamorphic rewrites of Go programs to re-check them on.
export { checkFidelity, mr1Violated, mr2Violated, mr3Violated, stateDistribution } from "./relations.js";
export { FidelityInputError, MutationError } from "./errors.js";
export { DEFAULT_THRESHOLDS, RELATIONS } from "./types.js";
export type {
  AlignmentBin,
  FidelityOptions,
  FidelityResult,
  FidelityThresholds,
  Mr4Result,
  PredictorSummary,
  Relation,
  RelationResult,
} from "./types.js";
export { runFidelity } from "./from-database.js";
export type { FidelityRun, FidelityRunOptions } from "./from-database.js";
export { fidelityText } from "./format.js";
export {
  mutateProgram,
  MUTATION_KINDS,
  originalOfVariant,
  renameCreator,
  rewriteManifest,
  variantName,
  VARIANT_FILE,
} from "./mutate.js";
export type { MutateOptions, MutationFailure, MutationKind, Variant } from "./mutate.js";
export { compareVariants, findVariantPairs } from "./variants.js";
export type { VariantComparison, VariantComparisonOptions, VariantFlips, VariantPair } from "./variants.js";
export { variantsText } from "./format.js";
export { listFidelityRuns, saveFidelityRun } from "./store.js";
export type { StoredFidelityRun } from "./store.js";
