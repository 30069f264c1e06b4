// The corpus stage: program manifests, discovery and `corpus check`.

export * from "./manifest.js";
export { discoverPrograms, programKind, type DiscoveredProgram, type ProgramKind } from "./discover.js";
export { creatorMatches, enclosingFunction, hasGoStatement, siteProblem } from "./sites.js";
export { checkCorpus, labelProblems, HIGH_NONDETERMINISM_TAG, type CorpusCheckOptions, type CorpusCheckReport, type CorpusFailure } from "./check.js";
export {
  generateCorpus,
  generateProgram,
  verifyGenerated,
  readSeedsIndex,
  corpusPlan,
  TEMPLATE_NAMES,
  GENERATOR_VERSION,
  DEADLOCK_TIMEOUT_MS,
  DEFAULT_IMPORT_ROOT,
  importRootOf,
  injectsBug,
  type GenerateCorpusOptions,
  type GenerateProgramOptions,
  type GeneratedCorpus,
  type GeneratedProgram,
  type GeneratedDrift,
  type SeedsIndex,
} from "./generate.js";
export { mulberry32, type Prng } from "./prng.js";
