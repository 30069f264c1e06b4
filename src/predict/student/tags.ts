// The student's reasoning tags: the classes of its tag head, each a block reason class (a
// GoBlock's reason, or for a GoUnblock the reason of the wait that ends), "none" otherwise.

import { blockReasonClass } from "./reasons.js";

export const TAG_CLASSES = [
  "none",
  "chan send",
  "chan receive",
  "select",
  "sync",
  "cond",
  "sleep",
  "forever",
  "other",
] as const;
export type TagClass = (typeof TAG_CLASSES)[number];

/** The tag class of a block reason; reasons without a tag of their own are "other". */
export function tagOfReason(reason: string): TagClass {
  const cls = blockReasonClass(reason);
  return cls === "preempted" || cls === "yield" || cls === "none" ? "other" : cls;
}
