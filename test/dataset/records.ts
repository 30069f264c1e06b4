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
