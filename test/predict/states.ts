// Small hand-made states and samples for predictor tests (no trace needed: a prefix is records).

import { prefixHash } from "../../src/dataset/prefix-hash.js";
import type { EventCounts, Prefix, Sample, State } from "../../src/dataset/types.js";
import { EVENT_TYPES, type EventType, type GoroutineRecord, type RecordKind } from "../../src/core/index.js";

/** Records from [kind, goroutine, reason?] triples, numbered in order. */
export function records(...items: Array<[RecordKind, number, string?]>): GoroutineRecord[] {
  return items.map(([kind, goroutine, reason], seq) => ({
    seq,
    timeNs: seq * 1000,
    kind,
    goroutine,
    actor: null,
    reason: reason ?? "",
    site: null,
  }));
}

export function prefixOf(recs: readonly GoroutineRecord[], end = recs.length, program = "demo/prog"): Prefix {
  return { program, runId: 1, procs: 2, records: recs, end };
}

export function countsOf(partial: Partial<Record<EventType, number>>): EventCounts {
  return Object.fromEntries(EVENT_TYPES.map((e) => [e, partial[e] ?? 0])) as EventCounts;
}

export function stateOf(id: string, prefix: Prefix, counts: Partial<Record<EventType, number>> = {}): State {
  return {
    id,
    abstraction: "depth",
    program: prefix.program,
    key: `depth=${prefix.end}`,
    counts: countsOf(counts),
    runs: 1,
    representative: prefix,
    prefixHash: prefixHash(prefix),
  };
}

export function sampleOf(prefix: Prefix, next: EventType, stateId = "s"): Sample {
  return { stateId, prefix, next };
}
