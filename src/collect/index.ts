// The collect stage: build Go programs once, run each many times under the execution
// tracer with the tracing harness, and record every run. See docs/collect.md.

export { collect } from "./collect.js";
export {
  corpusOf,
  labelCandidates,
  recordedCorpora,
  recordedCorporaAt,
  resolveCorpora,
  saveCorpora,
} from "./corpora.js";
export type { Corpus, CorpusRole, RecordedCorpora } from "./corpora.js";
export {
  collectModeOf,
  DEFAULT_STOP_ON,
  goflagsWithTags,
  normalizeCollectOptions,
  parseDuration,
  parseProcsList,
  parseShard,
  parseStopOn,
  parseTags,
  runConfigs,
  tagsOfGoflags,
} from "./options.js";
export { STRATEGIES, configKey, parseConfigKey } from "./strategy.js";
export type { Strategy } from "./strategy.js";
export { explorationCycle, exploredProcs, EXPLORE_TEST_COUNT } from "./explore.js";
export type { ExploreOptions } from "./explore.js";
export { exploreWithBudget } from "./budget.js";
export { replayCommand } from "./exploration.js";
export {
  blockedForeverInRun,
  checkRun,
  failureKey,
  runCheckOf,
  stopsHunt,
  storedCheck,
  withFailureClass,
} from "./check.js";
export { DEFAULT_REPLAY_ATTEMPTS, replayRun, sameFinding, ReplayError } from "./replay.js";
export type { ReplayOptions, ReplayResult } from "./replay.js";
export { PERTURB_SEED_ENV, perturbSeed, writePerturbOverlay } from "./perturb.js";
export type { PerturbPoint } from "./perturb.js";
export { raceReports } from "./races.js";
export {
  needsUntracedRerun,
  parseFailures,
  TRACER_CRASH_NOTE,
  TRACER_GOROUTINE_FUNCTION,
  TRACER_INDUCED_FIX,
  withUntracedRerun,
} from "./failures.js";
export { digestOutput, outputDigest, OUTPUT_DIGEST_LIMITS } from "./output-digest.js";
export type { OutputDigest, OutputDigestLimits } from "./output-digest.js";
export {
  selectShard,
  shardOf,
  parseShardOption,
  shardFromEnvironment,
  ShardEnvironmentError,
  type ResolvedShard,
  type ShardEngine,
} from "./shard.js";
export {
  budgetedRun,
  configuredTimeoutMs,
  DERIVED_TIMEOUT,
  endedByItself,
  EXPECTED_COST_FACTORS,
  firstRunTimeoutMs,
  GO_TEST_DEFAULT_TIMEOUT_MS,
  longestCompleteMsPerIteration,
  MAIN_FIRST_RUN_TIMEOUT_MS,
  runTimeoutMs,
} from "./timeout.js";
export type { BudgetedRun, BudgetedRunInput, ConfiguredTimeoutInput, DeadlineCause } from "./timeout.js";
export { buildBatch, buildBatches, buildProgram, EVERY_BUILD_FAILED_EXIT_CODE } from "./build.js";
export type { BuildTarget } from "./build.js";
export { tracedRun, testArguments, RACE_RUN_ENV } from "./traced-run.js";
export type { TracedRunRequest, TracedRunResult } from "./traced-run.js";
export { spawnWithDeadline, killGroup } from "./spawn.js";
export type { SpawnRequest, SpawnResult, Enforcement } from "./spawn.js";
export { classifyOutcome } from "./outcome.js";
export type { RunEvidence } from "./outcome.js";
export { checkTraceFile, trimIncompleteBatch } from "./trace-file.js";
export type { TraceFileCheck } from "./trace-file.js";
export { runFiles, programPath, raceLogPath } from "./paths.js";
export type { RunFiles } from "./paths.js";
export {
  DEFAULT_SETTLE_MS,
  HARNESS_ENV,
  HARNESS_FILE,
  HARNESS_SOURCE,
  HARNESS_TIMEOUT_EXIT_CODE,
  harnessStopOf,
  writeHarnessOverlay,
} from "./harness.js";
export type { HarnessStop } from "./harness.js";
export {
  explorationLine,
  progressLine,
  clock,
  logProgressLine,
  tallyFindings,
  type FindingTally,
  type LogProgressContext,
} from "./progress.js";
export { diagnose } from "./doctor.js";
export type { Diagnosis, DoctorCheck } from "./doctor.js";
export { CollectInterruptedError } from "./errors.js";
export { FINDING_CLASSES, RUN_OUTCOMES } from "./types.js";
export type { CollectModeFields } from "./options.js";
export type {
  BlockedAtEnd,
  BudgetMode,
  BudgetModeOptions,
  BudgetProgress,
  BuildResult,
  CollectCommonOptions,
  CollectMode,
  CollectModeOptions,
  CollectOptions,
  CollectProgress,
  CollectResult,
  ExplorationFinding,
  ExplorationSummary,
  FindingClass,
  NormalizedCollectOptions,
  ProgramSummary,
  RunCheck,
  RunConfig,
  RunOutcome,
  RunsMode,
  RunsModeOptions,
  RunSummary,
  Shard,
  TestFailure,
  UntracedOutcome,
} from "./types.js";
export { untracedRerun, untracedArguments, untracedEnvironment } from "./untraced-rerun.js";
export type { UntracedRerun, UntracedRerunRequest } from "./untraced-rerun.js";
export {
  PEERS,
  PEER_FILES,
  GOLEAK_MODULE,
  parsePeers,
  peerFile,
  peerSource,
  preparePeerBuild,
  peerRunEnv,
  keepPeerReports,
  writePeerChecks,
} from "./peers.js";
export type { Peer, PeerBuild } from "./peers.js";
export {
  AGENT_DUMP_HEADER,
  AGENT_ENV,
  AGENT_HANG_EXIT_CODE,
  AGENT_MAIN_FILE,
  AGENT_PROBE_MS,
  AGENT_PROFILE_HEADER,
  AGENT_PROFILE_SUFFIX,
  AGENT_TEST_FILE,
  agentSource,
  agentStoppedHung,
  LEAK_PROFILE_EXPERIMENT,
  leakProfileSupport,
  leakProfileUnavailable,
  USER_TEST_MAIN,
  type LeakProfileSupport,
} from "./agent.js";
export { leakProfileBuildEnv, writeAgentTestOverlay, type AgentTestOverlay } from "./agent-overlay.js";
export { agentProfilePaths, agentRunEnv, keepAgentProfile } from "./agent-run.js";
export { goroutinesOfDump, LeakProfileFormatError, parseLeakProfile } from "./leak-profile.js";
export type { LeakProfileContext, ParsedLeakProfile } from "./leak-profile.js";
