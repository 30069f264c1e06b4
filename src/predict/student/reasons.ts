// Reason classes of records: a GoBlock's block reason or a GoSched's kind (yield or
// preemption) folded into a few classes the student's features and tags share.

import type { GoroutineRecord } from "../../core/index.js";

/** Reason classes of a record: block reasons, the two GoSched kinds, and none. */
export const REASON_CLASSES = [
  "none",
  "chan send",
  "chan receive",
  "select",
  "sync",
  "cond",
  "sleep",
  "forever",
  "preempted",
  "yield",
  "other",
] as const;
export type ReasonClass = (typeof REASON_CLASSES)[number];

/** Block-reason classes a waiting goroutine can be in (REASON_CLASSES without none/yield). */
export const WAIT_CLASSES: readonly ReasonClass[] = REASON_CLASSES.filter((c) => c !== "none" && c !== "yield");

/** Maps a Go block reason (GoBlock) or GoSched reason to its class. */
export function blockReasonClass(reason: string): ReasonClass {
  switch (reason) {
    case "chan send":
      return "chan send";
    case "chan receive":
      return "chan receive";
    case "select":
      return "select";
    case "sync":
      return "sync";
    case "sync.(*Cond).Wait":
      return "cond";
    case "sleep":
      return "sleep";
    case "forever":
      return "forever";
    case "preempted":
      return "preempted";
    case "runtime.Gosched":
      return "yield";
    default:
      return "other";
  }
}

/** The reason class of one record: GoBlock and GoSched carry one; every other kind is "none". */
export function recordReasonClass(record: Pick<GoroutineRecord, "kind" | "reason">): ReasonClass {
  if (record.kind === "GoBlock" || record.kind === "GoSched") return blockReasonClass(record.reason);
  return "none";
}
