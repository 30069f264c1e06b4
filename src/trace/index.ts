// The trace stage: Go execution traces → user-goroutine records with canonical identities.
export * from "./types.js";
export { decodeTrace, type DecodeOptions } from "./decode.js";
export {
  DEFAULT_MAX_STORED_RECORDS,
  ingestRuns,
  ingestSummaryOf,
  pendingIngestCount,
  recordedTraces,
  runIngester,
  type DecodeTap,
  type IngestedRun,
  type IngestKeep,
  type IngestOptions,
  type IngestSummary,
  type RunIngestResult,
} from "./ingest.js";
export {
  countRunEvents,
  forEachRunRecord,
  forEachGoroutineRecord,
  forEachRunRecordInChunks,
  iterateRunRecords,
  loadRunRecords,
  lastRunRecord,
  loadRunGoroutines,
  loadRunEndStates,
  loadRunExcerpt,
  isGcPreemption,
} from "./load.js";
export { EXCERPT_WINDOWS, excerptTargets, type Excerpt, type ExcerptWindow } from "./excerpt.js";
export { canonicalGoroutineIds, shortFunctionName, testName } from "./identity.js";
export { relativePackagePaths } from "./package-path.js";
export { DEFAULT_GOROUTINE_FILTER, isDroppedEntry } from "./filter.js";
export { SummaryOnlyRunError, TraceCorruptError, TraceDecodeError } from "./errors.js";
export {
  parseParsedDump,
  parseGo126DumpLine,
  parseGo122DumpLine,
  recordKindOfTransition,
  type DumpTransition,
} from "./parsedDump.js";
export { testFunctionsInOrder } from "./testOrder.js";
