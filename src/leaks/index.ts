// The leaks stage: goroutines that block forever (P(GoUnblock) = 0 after their last block),
// found across repeated runs, scored against manifest labels beside peer detectors.
export * from "./types.js";
export { clopperPearsonUpper, binomialCdf } from "./bound.js";
export {
  runStateFold,
  runGoroutineStates,
  blockKey,
  judgeProgram,
  ownerOf,
  type RunStateFold,
  type GoroutineJudgement,
  type RunJudgement,
  type RuleOptions,
  type WaitSource,
} from "../model/index.js";
export { runEndedByCrash, RUNTIME_DEADLOCK, traceReasonOfDumpStatus } from "../model/index.js";
export { detectLeaks, analyseProgram, detectBlockedAtCrash, earlyDetection, creationSiteKey } from "./detect.js";
export {
  storedPrograms,
  programLeakRuns,
  analyseRun,
  analyseProgramRuns,
  raceRunOutputs,
  failureRuns,
  type StoredProgram,
} from "./load.js";
export { saveFindings, loadFindings, programsWithBug, saveRaceFindings, loadRaceFindings } from "./store.js";
export { NO_RUN_ENDS, runEndsOf, type RunEnds, type OutsideHangReport } from "./run-ends.js";
export {
  parseRaceReports,
  detectRaces,
  isStandardFrame,
  topUserFrame,
  frameSite,
  type RaceReport,
  type RaceAccess,
  type RaceFrame,
  type RaceFinding,
  type RaceRunOutput,
} from "./race.js";
export {
  splitCanonicalId,
  testOfRoot,
  subtestNameInSource,
  rewriteSubtestName,
  placeInTest,
  subtestName,
  tableSubtestNames,
  type SubtestNaming,
  type IdSegment,
  type SplitId,
  type TestPlacement,
} from "./test-path.js";
export { subtestLookup } from "./test-source.js";
export {
  signatureOfFinding,
  signatureKey,
  distinctSignatures,
  sameGoroutine,
  type BlockedSignature,
} from "./signature.js";
export {
  scoreSignatures,
  scoreProgram,
  matchesExpected,
  counts,
  type Counts,
  type LeakScore,
  type ProgramScore,
  type LabelledProgram,
} from "./score.js";
export { parseGoroutineDump } from "./dump.js";
export { PEER_ARTIFACTS, parseGoleakReport, parsePeerArtifact, type PeerName, type PeerArtifact } from "./peers.js";
export {
  compareLeaks,
  compareDetectors,
  formatComparison,
  parseCompareDetectors,
  COMPARISON_JSON_VERSION,
  type DetectorComparison,
  type ComparisonRow,
  type DetectorVerdict,
  type PairAgreement,
  type DetectorCoverage,
  type PeerDetector,
  type PeerOutput,
  type OwnOutput,
  type OwnFinding,
} from "./compare.js";
export {
  analyseLeaks,
  scoreLeaks,
  testPlacement,
  DETECTORS,
  type AnalyseOptions,
  type LeakAnalysis,
  type ProgramAnalysis,
  type BugReport,
  type LeakScoreReport,
  type DetectorScore,
  type DetectorName,
} from "./from-database.js";
export {
  formatFindings,
  formatScore,
  analysisJson,
  findingJson,
  evidenceText,
  kindCounts,
  bugCounts,
  BOUND_FORMULA,
  LEAKS_JSON_VERSION,
} from "./format.js";
export { GATES, gateCounts, gateFailures, type Gate } from "./gates.js";
export {
  detectTestFailures,
  detectTracerInduced,
  failureSummary,
  type CrashFinding,
  type FailingFinding,
  type FailureRun,
  type FailureRunRef,
  type FlakyFinding,
  type TestFailureFindings,
  type TracerInducedFailure,
} from "./flaky.js";
export {
  waitSites,
  loadWaitSites,
  waitSiteAt,
  parseWaitSites,
  waitSourceOf,
  type WaitSite,
  type WaitCase,
  type WaitSiteIndex,
  type WaitSiteKind,
} from "../model/index.js";
export { leaksOutput, LEAKS_FORMATS, type LeaksFormat, type LeaksOutputOptions } from "./output.js";
export {
  baselineOf,
  parseBaseline,
  readBaseline,
  saveBaseline,
  matchBaseline,
  BASELINE_VERSION,
  BaselineFormatError,
  type Baseline,
  type BaselineEntry,
  type BaselineMatch,
  type BaselineScope,
} from "./baseline.js";
export { ciResults, ruleId, severityOf, CI_RULES, type CiResult, type CiSeverity } from "./ci-results.js";
export { countedItems, raceFingerprint, flakyFingerprint, type CountedItem, type CountedKind } from "./fingerprints.js";
export { defaultRepoRoot } from "./source-paths.js";
export {
  waitForGraph,
  potentialDeadlockGraph,
  memberExplanations,
  type WaitForGraph,
  type GraphNode,
  type GoroutineNode,
  type LockNode,
  type GraphEdge,
  type EdgeBasis,
  type PicturedBug,
  type PicturedFinding,
} from "./wait-for-graph.js";
export {
  bugTimeline,
  timelineFold,
  compressTime,
  type BugTimeline,
  type TimelineLane,
  type LaneSegment,
  type LaneState,
  type LastBlock,
  type TimelineMark,
  type TimeWindow,
} from "./bug-timeline.js";
