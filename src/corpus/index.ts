// The corpus stage: what a program on disk is (discovery, shared by `corpus check` and
// collect), program manifests, `corpus check` and the corpus generator.

export * from "./manifest.js";
export type { BuildTarget, ProgramSpec } from "./types.js";
export type { ProgramKind } from "../core/index.js";
export { NoGoCodeError, ProgramNameClashError, ProgramNotFoundError } from "./errors.js";
export {
  discoverPrograms,
  discoveryRoots,
  isPackagePattern,
  programName,
  readManifest,
  resolvePackagePattern,
  scanPackages,
  selectProgramsByName,
} from "./discover.js";
export type { Discovery, DiscoverOptions, ResolvedPattern, ScannedPackage, ScanOptions } from "./discover.js";
export {
  callsStandardLibrary,
  creatorMatches,
  enclosingFunction,
  hasGoStatement,
  siteProblem,
  standardLibraryImports,
} from "./sites.js";
export {
  checkCorpus,
  labelProblems,
  HIGH_NONDETERMINISM_TAG,
  type CorpusCheckOptions,
  type CorpusCheckReport,
  type CorpusFailure,
} from "./check.js";
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
export {
  excludedByModule,
  fetchModule,
  moduleCopiesDir,
  moduleLabel,
  ModuleFetchError,
  parseModuleSource,
  resolveSources,
  type FetchedModule,
  type ModuleSource,
  type ResolvedSources,
} from "./module-source.js";
export { parseCorpusFile, readCorpusFile } from "./corpus-file.js";
export { mulberry32, type Prng } from "./prng.js";
