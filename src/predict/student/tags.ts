// The student's reasoning tags: the classes of its tag head, each a block reason class (a
// GoBlock's reason, or for a GoUnblock the reason of the wait that ends), "none" otherwise.

import { blockReasonClass, REASON_CLASSES, type ReasonClass } from "./reasons.js";

/** The tag head's classes: REASON_CLASSES without the two GoSched kinds, in that order (the head's class indices). */
export type TagClass = Exclude<ReasonClass, "preempted" | "yield">;
const isTagClass = (c: ReasonClass): c is TagClass => c !== "preempted" && c !== "yield";
export const TAG_CLASSES: readonly TagClass[] = REASON_CLASSES.filter(isTagClass);

/** The tag class of a block reason; reasons without a tag of their own are "other". */
export function tagOfReason(reason: string): TagClass {
  const cls = blockReasonClass(reason);
  return isTagClass(cls) && cls !== "none" ? cls : "other";
}
