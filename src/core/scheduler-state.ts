// The scheduler-state tracker: replays decoded records of one run and knows, after any
// prefix, what each goroutine is doing and how many goroutines are in each state.
// Pure and incremental: applyRecord is O(1); snapshots copy only the per-reason map.

import { isEventType } from "./events.js";
import type { GoroutineRecord } from "./records.js";

/** What a goroutine is doing, from the records seen so far. */
export type GoroutineStatus = "runnable" | "running" | "waiting" | "syscall" | "ended";

export const GOROUTINE_STATUSES: readonly GoroutineStatus[] = ["runnable", "running", "waiting", "syscall", "ended"];

/** One goroutine's state. `reason` is the block reason while waiting, else "". */
export interface GoroutineState {
  readonly status: GoroutineStatus;
  readonly reason: string;
  /** Number of six-type events of this goroutine seen so far (its own step index for the next one). */
  readonly steps: number;
}

/**
 * Counts over the goroutines seen so far. Invariant: running + runnable + waiting + syscall
 * is the number of live goroutines, and `waiting` equals the sum of `waitingByReason`.
 */
export interface SchedulerCounts {
  readonly running: number;
  readonly runnable: number;
  readonly waiting: number;
  /** Waiting goroutines per block reason ("" for a reasonless block); zero entries omitted. */
  readonly waitingByReason: Readonly<Record<string, number>>;
  readonly syscall: number;
  /** GoCreate records seen (goroutines first seen through Initial are not counted). */
  readonly created: number;
  /** GoEnd records seen. */
  readonly ended: number;
}

/** Mutable replay state. Treat it as opaque: read it through the functions below. */
export interface SchedulerTracker {
  readonly goroutines: Map<number, GoroutineState>;
  readonly statusCounts: Record<GoroutineStatus, number>;
  readonly waitingByReason: Map<string, number>;
  created: number;
  ended: number;
  /** Records applied so far. */
  applied: number;
}

export function newSchedulerTracker(): SchedulerTracker {
  return {
    goroutines: new Map(),
    statusCounts: { runnable: 0, running: 0, waiting: 0, syscall: 0, ended: 0 },
    waitingByReason: new Map(),
    created: 0,
    ended: 0,
    applied: 0,
  };
}

/**
 * Applies one record. A goroutine first seen through any record other than GoCreate or
 * Initial (a trace that started mid-run) simply enters the record's target state.
 */
export function applyRecord(tracker: SchedulerTracker, record: GoroutineRecord): void {
  tracker.applied++;
  const previous = tracker.goroutines.get(record.goroutine);
  const steps = (previous?.steps ?? 0) + (isEventType(record.kind) ? 1 : 0);
  const target = targetState(record, previous);
  if (record.kind === "GoCreate") tracker.created++;
  if (record.kind === "GoEnd") tracker.ended++;
  if (previous !== undefined) leave(tracker, previous);
  const next: GoroutineState = { status: target.status, reason: target.reason, steps };
  enter(tracker, next);
  tracker.goroutines.set(record.goroutine, next);
}

/** Replays `records[0 .. end)` into a new tracker. */
export function trackerAt(records: readonly GoroutineRecord[], end: number): SchedulerTracker {
  const tracker = newSchedulerTracker();
  for (let i = 0; i < end && i < records.length; i++) applyRecord(tracker, records[i]);
  return tracker;
}

export function snapshotCounts(tracker: SchedulerTracker): SchedulerCounts {
  const waitingByReason: Record<string, number> = {};
  for (const reason of [...tracker.waitingByReason.keys()].sort()) {
    const n = tracker.waitingByReason.get(reason) ?? 0;
    if (n > 0) waitingByReason[reason] = n;
  }
  const c = tracker.statusCounts;
  return {
    running: c.running,
    runnable: c.runnable,
    waiting: c.waiting,
    waitingByReason,
    syscall: c.syscall,
    created: tracker.created,
    ended: tracker.ended,
  };
}

/** The state of goroutine `gid`, or undefined if no record has mentioned it yet. */
export function goroutineState(tracker: SchedulerTracker, gid: number): GoroutineState | undefined {
  return tracker.goroutines.get(gid);
}

/** Goroutine ids seen so far, in order of first appearance. */
export function knownGoroutines(tracker: SchedulerTracker): number[] {
  return [...tracker.goroutines.keys()];
}

function targetState(
  record: GoroutineRecord,
  previous: GoroutineState | undefined,
): { status: GoroutineStatus; reason: string } {
  switch (record.kind) {
    case "GoCreate":
      return { status: "runnable", reason: "" };
    case "GoStart":
      return { status: "running", reason: "" };
    case "GoBlock":
      return { status: "waiting", reason: record.reason };
    case "GoUnblock":
      return { status: "runnable", reason: "" };
    case "GoSched":
      return { status: "runnable", reason: "" };
    case "GoEnd":
      return { status: "ended", reason: "" };
    case "SyscallEnter":
      return { status: "syscall", reason: "" };
    case "SyscallExit":
      return { status: "running", reason: "" };
    case "SyscallUnblock":
      return { status: "runnable", reason: "" };
    case "Initial":
      return initialState(record.reason, previous);
    default:
      // A kind this version does not know (a newer decoder): the goroutine keeps its state.
      return previous === undefined
        ? { status: "runnable", reason: "" }
        : { status: previous.status, reason: previous.reason };
  }
}

/**
 * Parses an Initial record's state name ("Running", "Waiting", "waiting: chan receive", …).
 * An unrecognised name keeps the previous state, or runnable for a new goroutine.
 */
export function initialState(name: string, previous?: GoroutineState): { status: GoroutineStatus; reason: string } {
  const text = name.trim();
  const lower = text.toLowerCase();
  if (lower.startsWith("waiting")) {
    const reason = text.slice("waiting".length).replace(/^[\s:(-]+|[\s)]+$/g, "");
    return { status: "waiting", reason };
  }
  if (lower.startsWith("running")) return { status: "running", reason: "" };
  if (lower.startsWith("runnable")) return { status: "runnable", reason: "" };
  if (lower.startsWith("syscall")) return { status: "syscall", reason: "" };
  if (lower.startsWith("notexist") || lower.startsWith("dead")) return { status: "ended", reason: "" };
  return previous === undefined
    ? { status: "runnable", reason: "" }
    : { status: previous.status, reason: previous.reason };
}

function leave(tracker: SchedulerTracker, state: GoroutineState): void {
  tracker.statusCounts[state.status]--;
  if (state.status === "waiting") {
    const n = (tracker.waitingByReason.get(state.reason) ?? 0) - 1;
    if (n <= 0) tracker.waitingByReason.delete(state.reason);
    else tracker.waitingByReason.set(state.reason, n);
  }
}

function enter(tracker: SchedulerTracker, state: GoroutineState): void {
  tracker.statusCounts[state.status]++;
  if (state.status === "waiting")
    tracker.waitingByReason.set(state.reason, (tracker.waitingByReason.get(state.reason) ?? 0) + 1);
}
