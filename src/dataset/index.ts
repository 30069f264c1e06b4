// The dataset stage: samples, states and empirical next-event distributions (docs/dataset.md),
// prompt rendering, program splits, ceilings and baselines.

export type {
  Abstraction,
  EventCounts,
  Prefix,
  RunRecords,
  RunSelection,
  RunStrategy,
  Sample,
  SampleRow,
  State,
} from "./types.js";
export { ABSTRACTIONS, RUN_STRATEGIES } from "./types.js";
export { approximateTokens, DEFAULT_MAX_TOKENS, NEXT_EVENT_QUESTION, renderPrefix, shortSite } from "./render.js";
export type { RenderOptions } from "./render.js";
export {
  addCounts,
  countsFromVector,
  distinctOutcomes,
  emptyCounts,
  entropyBits,
  modeEvent,
  probabilities,
  totalCount,
} from "./distribution.js";
export {
  bucket,
  contextKey,
  eventLabel,
  eventSequence,
  forEachSample,
  inRunOrder,
  poolStates,
  prefixAt,
  sampleOf,
  SPLIT_POINTS,
  splitIndex,
  statesFromRuns,
} from "./abstractions.js";
export type { StatesAndSamples } from "./abstractions.js";
export { isPooled, POOLED_PROGRAM, stateId } from "./state-id.js";
export { prefixHash, prefixHasher } from "./prefix-hash.js";
export type { PrefixHasher } from "./prefix-hash.js";
export {
  classFrequencies,
  majorityAccuracy,
  majorityClass,
  meanEntropy,
  stateCeiling,
  multiOutcomeShare,
  pooledCounts,
  summarizeStates,
} from "./summary.js";
export type { DistributionSummary, HasCounts } from "./summary.js";
export {
  ceilingAccuracy,
  leaveOneRunOutCeiling,
  leaveOneRunOutCeilingOfColumns,
  leaveOneRunOutCredits,
  seenOnceShare,
} from "./ceiling.js";
export type { CeilingColumns, CeilingSample, SeenOnce } from "./ceiling.js";
export {
  DATASET_FORMAT_VERSION,
  ingestedPrograms,
  loadDataset,
  loadProgramRuns,
  programInputHash,
  refreshDataset,
  cappedPrograms,
  runSelectionName,
  selectPrograms,
} from "./store.js";
export {
  loadSide,
  loadSplitData,
  programSides,
  samplesWithPrefixes,
  sideSampleCounts,
  splitData,
  storedSamplesWithPrefixes,
  splitDataOf,
  splitSampleCap,
  trainingSide,
} from "./split-data.js";
export type { LoadSplitOptions, SideSampleCounts, SplitData, SplitSide, SplitSource } from "./split-data.js";
export type { Dataset, DatasetOptions, DatasetProgram, LoadDatasetOptions, RefreshReport } from "./store.js";
export {
  DEFAULT_HOLDOUT_FRACTION,
  hashedFamilyPick,
  holdoutPrograms,
  resolveHoldout,
  resolveTrainOn,
  saveHoldout,
  splitCandidates,
  splitProgram,
  splitPrograms,
  trainingPrograms,
} from "./split.js";
export type { HoldoutSplit, PinnedModule, SpecLookups, SplitFamilies, SplitOptions, SplitProgram } from "./split.js";
export { familyGroup, programFamily } from "./family.js";
export {
  cappedLine,
  cappedProgram,
  cappedTotals,
  sampleCapJson,
  DEFAULT_MAX_SAMPLES_PER_PROGRAM,
  everyNthSample,
  keptPositions,
  keptSamples,
  samplePositions,
  samplesOfRun,
  sampleStride,
} from "./sample-cap.js";
export type { CappedProgram, PositionRange, SampleCapReport } from "./sample-cap.js";
export { EXPORT_OBJECTIVES, EXPORT_SPLITS, exportDataset } from "./export.js";
export type { ExportObjective, ExportOptions, ExportSplit, ExportSummary } from "./export.js";
export { distributionJson, distributionReport, formatDistributionTable } from "./distribution-report.js";
export type { DistributionReport, DistributionReportOptions, StateDistributionRow } from "./distribution-report.js";
