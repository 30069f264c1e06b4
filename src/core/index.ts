// The shared vocabulary below every stage (floor 0): event types and record kinds with their
// one numbering, the decoded records, the scheduler-state tracker that replays them, the kind of program a run comes from, and the number
// formatting every rendering uses, a binary search, and Go symbol names as a reader scans them.
export {
  EVENT_TYPES,
  NON_EVENT_KINDS,
  RARE_EVENTS,
  RECORD_KINDS,
  isEventType,
  recordKindCode,
  type EventType,
  type NonEventKind,
  type RecordKind,
} from "./events.js";
export type { GoroutineInfo, GoroutineRecord, LeakProfileTaken, LockOp, RuntimeGoroutine } from "./records.js";
export type { ProgramKind } from "./programs.js";
export { lowerBound } from "./search.js";
export {
  applyRecord,
  goroutineState,
  GOROUTINE_STATUSES,
  initialState,
  knownGoroutines,
  newSchedulerTracker,
  snapshotCounts,
  trackerAt,
} from "./scheduler-state.js";
export type { GoroutineState, GoroutineStatus, SchedulerCounts, SchedulerTracker } from "./scheduler-state.js";
export { packageName, shortFunction, splitSymbol } from "./go-names.js";
export {
  MISSING,
  count,
  fixed,
  interval,
  pct,
  pctInterval,
  pctLevel,
  plural,
  points,
  pValue,
  signed,
  signedPoints,
  signedPointsInterval,
  MINUS,
} from "./format.js";
