// The goroutine model: the state machine over a run's records and the one leak rule that
// collect's per-run check, `schedlab leaks`, the report and the peers' comparison share.
export * from "./types.js";
export { blockKey, initialState, runStateFold, runGoroutineStates, type RunStateFold } from "./goroutine-fold.js";
export {
  daemonParks,
  endWaitOf,
  judgeProgram,
  lateWaitOf,
  ownerOf,
  RUNTIME_PROOF,
  type GoroutineJudgement,
  type RunJudgement,
  type RuleOptions,
  type WaitSource,
} from "./leak-rule.js";
export {
  hangOutsideUser,
  isBlockingWait,
  processHang,
  runtimeOf,
  runtimeWait,
  traceReasonOfDumpStatus,
  type OutsideHang,
  type ProcessHang,
  type RuntimeWait,
} from "./runtime-view.js";
export { isCrashStart, runEndedByCrash, RUNTIME_DEADLOCK, TEST_TIMEOUT, leakRunOf, type RecordedRun } from "./crash.js";
export {
  waitSites,
  loadWaitSites,
  waitSiteAt,
  parseWaitSites,
  waitSourceOf,
  sourceWakersOf,
  wakersInSource,
  type WaitSite,
  type WaitCase,
  type WaitSiteIndex,
  type WaitSiteKind,
} from "./wait-sites.js";
export {
  parseStack,
  parseFrame,
  frameText,
  shortFunction,
  preciseWait,
  isLockWait,
  libraryCall,
  PRECISE_WAITS,
  type PreciseWait,
  type Frame,
  type BlockStack,
} from "./waits.js";
export {
  lockFold,
  holdersOf,
  NO_LOCKS,
  type RunLocks,
  type LockHold,
  type LockEdge,
  type RecursiveRead,
  type LockMode,
} from "./locks.js";
export {
  explainProgram,
  goroutineLabel,
  siteLine,
  type BlockPlace,
  type Explanation,
  type WaitFor,
  type WaitForBasis,
  type CycleStep,
  type SourceWakers,
  type ExplainOptions,
  type SourceGoroutine,
} from "./explain.js";
export { groupBugs, fingerprintOf, fingerprintProgram, ownerRoot, type Bug, type MemberJudgement } from "./bugs.js";
export { predictDeadlocks, type PotentialDeadlock, type OrderStep } from "./lock-order.js";
export { encodeEndStates, decodeEndStates, EndStateFormatError, END_STATE_FORMAT } from "./end-state-codec.js";
