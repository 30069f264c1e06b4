// Builds small hand-written record streams for dataset tests.

import type { GoroutineRecord, RecordKind } from "../../src/core/index.js";

/** One record as [kind, goroutine, reason?, site?]; seq and time are filled in. */
export type RecordSpec = readonly [RecordKind, number, string?, string?];

export function records(specs: readonly RecordSpec[]): GoroutineRecord[] {
  return specs.map(([kind, goroutine, reason, site], seq) => ({
    seq,
    timeNs: 1000 * (seq + 1),
    kind,
    goroutine,
    actor: null,
    reason: reason ?? "",
    site: site ?? null,
  }));
}

// Two runs of one program with the same first events and a different order later:
// run 1: g1 creates g2, g1 blocks, g2 starts, g2 ends
// run 2: g1 creates g2, g2 starts, g1 blocks (after a syscall of g2), g2 ends
export const run1: RecordSpec[] = [
  ["Initial", 1, "Running"],
  ["GoCreate", 2],
  ["GoBlock", 1, "chan receive"],
  ["GoStart", 2],
  ["GoEnd", 2],
];
export const run2: RecordSpec[] = [
  ["Initial", 1, "Running"],
  ["GoCreate", 2],
  ["GoStart", 2],
  ["SyscallEnter", 2],
  ["SyscallExit", 2],
  ["GoBlock", 1, "chan receive"],
  ["GoEnd", 2],
];
