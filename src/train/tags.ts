// Symbolic reasoning targets, exact from the trace: the block reason behind the next event
// if it is a GoBlock, the wake-up cause if it is a GoUnblock (the reason of the wait that
// ends: a goroutine waiting on "chan receive" is woken by a send), and "none" otherwise.
// The tag classes themselves are the student's (src/predict/student/tags.ts).

import type { Prefix } from "../dataset/index.js";
import { tagOfReason, type TagClass } from "../predict/index.js";
import {
  goroutineState,
  trackerAt,
  type EventType,
  type GoroutineRecord,
  type SchedulerTracker,
} from "../core/index.js";

/**
 * The record of the next event after `prefix`: records[end] when it is that event, else the
 * first later record of kind `next` (non-event records may sit in between).
 */
export function nextEventRecord(prefix: Prefix, next: EventType): GoroutineRecord | undefined {
  for (let i = prefix.end; i < prefix.records.length; i++) {
    if (prefix.records[i].kind === next) return prefix.records[i];
  }
  return undefined;
}

/** The tag class of the event following a prefix; `tracker` must be at prefix.end. */
export function tagTarget(next: EventType, record: GoroutineRecord | undefined, tracker: SchedulerTracker): TagClass {
  if (record === undefined) return "none";
  if (next === "GoBlock") return tagOfReason(record.reason);
  if (next === "GoUnblock") {
    const waiting = goroutineState(tracker, record.goroutine);
    return waiting?.status === "waiting" ? tagOfReason(waiting.reason) : "other";
  }
  return "none";
}

/** Convenience for one prefix (replays it). */
export function tagTargetOfPrefix(prefix: Prefix, next: EventType): TagClass {
  return tagTarget(next, nextEventRecord(prefix, next), trackerAt(prefix.records, prefix.end));
}
