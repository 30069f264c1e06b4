// The rollout stage (docs/rollout.md): the goroutine state machine, the goroutine-choice rule,
// multi-step rollouts of any predictor, their metrics, and their SQLite tables.
export {
  applyTransition,
  machineCounts,
  newGoroutineMachine,
  replayRecords,
  TRANSITION_RULES,
  validateTransition,
} from "./state-machine.js";
export type {
  GoroutineMachine,
  ProposedTransition,
  ReplayViolation,
  TransitionRule,
  Verdict,
} from "./state-machine.js";
export { chooseTransition, judgeEvent } from "./choose.js";
export type { JudgedEvent } from "./choose.js";
export { drawIndex, rollOut, rolloutState, temperatureWeights } from "./rollout.js";
export type { Rollout, RolloutEnd, RolloutOptions } from "./rollout.js";
export {
  brokenRuleCounts,
  distributionGap,
  endCounts,
  eventTypeDistribution,
  kStepAccuracy,
  meanInfeasibleMass,
  meanSurvival,
  perStepAccuracy,
  reachedKShare,
} from "./metrics.js";
export {
  realContinuations,
  runRollouts,
  spreadStates,
  summarizeRollouts,
  validateRolloutOptions,
} from "./from-database.js";
export type { PrefixRollouts, RolloutMetrics, RolloutReport, RolloutRunOptions } from "./from-database.js";
export { listRolloutRuns, loadRolloutReport, rolloutRunExists, saveRolloutReport } from "./store.js";
export type { StoredRolloutRun } from "./store.js";
