// Empirical next-event distributions: counts per event type, p̂, entropy and mode.
// Pure functions over EventCounts; every vector is in EVENT_TYPES order.

import { EVENT_TYPES, type EventType } from "../core/index.js";
import type { EventCounts } from "./types.js";

/** All-zero counts. */
export function emptyCounts(): Record<EventType, number> {
  return { GoCreate: 0, GoStart: 0, GoBlock: 0, GoUnblock: 0, GoSched: 0, GoEnd: 0 };
}

/** Counts from a vector in EVENT_TYPES order. */
export function countsFromVector(vector: readonly number[]): EventCounts {
  const counts = emptyCounts();
  EVENT_TYPES.forEach((event, i) => (counts[event] = vector[i] ?? 0));
  return counts;
}

/** Element-wise sum of counts. */
export function addCounts(a: EventCounts, b: EventCounts): EventCounts {
  const sum = emptyCounts();
  for (const event of EVENT_TYPES) sum[event] = a[event] + b[event];
  return sum;
}

/** Number of samples behind the counts. */
export function totalCount(counts: EventCounts): number {
  let n = 0;
  for (const event of EVENT_TYPES) n += counts[event];
  return n;
}

/** p̂ in EVENT_TYPES order; all zeros when there are no samples. Example: {GoStart:3, GoEnd:1} → [0, .75, 0, 0, 0, .25]. */
export function probabilities(counts: EventCounts): number[] {
  const n = totalCount(counts);
  return EVENT_TYPES.map((event) => (n === 0 ? 0 : counts[event] / n));
}

/** Shannon entropy of p̂ in bits. Example: {GoStart:1, GoBlock:1} → 1; {GoStart:3, GoEnd:1} → 0.8113. */
export function entropyBits(counts: EventCounts): number {
  let h = 0;
  for (const p of probabilities(counts)) if (p > 0) h -= p * Math.log2(p);
  return h === 0 ? 0 : h;
}

/** The most frequent event; ties go to the earliest in EVENT_TYPES order. Undefined without samples. */
export function modeEvent(counts: EventCounts): EventType | undefined {
  let best: EventType | undefined;
  for (const event of EVENT_TYPES)
    if (counts[event] > 0 && (best === undefined || counts[event] > counts[best])) best = event;
  return best;
}

/** Number of distinct next events observed. */
export function distinctOutcomes(counts: EventCounts): number {
  return EVENT_TYPES.filter((event) => counts[event] > 0).length;
}
