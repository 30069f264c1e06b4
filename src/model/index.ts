// The goroutine model: the state machine over a run's records and the one leak rule that
// collect's per-run check, `schedlab leaks`, the report and the peers' comparison share.
export * from "./types.js";
export { blockKey, runStateFold, runGoroutineStates, type RunStateFold } from "./goroutine-fold.js";
export { judgeProgram, ownerOf, type GoroutineJudgement, type RunJudgement, type RuleOptions, type WaitSource } from "./leak-rule.js";
export { runEndedByCrash, RUNTIME_DEADLOCK } from "./crash.js";
export { waitSites, loadWaitSites, waitSiteAt, parseWaitSites, waitSourceOf, type WaitSite, type WaitCase, type WaitSiteIndex, type WaitSiteKind } from "./wait-sites.js";
