// The four abstractions as one-pass steppers: a run's records are pushed one at a time (from
// an array, or streamed from SQLite) and each six-type event that is a sample's next event is
// emitted with its state key. statesFromRuns and the streaming dataset build share them.

import {
  applyRecord,
  isEventType,
  newSchedulerTracker,
  snapshotCounts,
  type EventType,
  type GoroutineInfo,
  type GoroutineRecord,
  type SchedulerCounts,
} from "../core/index.js";
import type { Abstraction, ExcerptShape } from "./types.js";

/** Percent positions of the `split` abstraction. */
export const SPLIT_POINTS = [25, 50, 75] as const;

/**
 * Receives each sample of a run: its state key, the index of its next event among the run's
 * stored records, that event, and the sample's position in the whole run — the event's index
 * among the whole run's events (an excerpt's too, counted from its windows), or under `split`
 * the split point's index (0, 1, 2): what the sample cap strides over (sample-cap.ts).
 */
export type SampleVisitor = (key: string, end: number, next: EventType, position: number) => void;

/**
 * What a stepper needs to know of the run before its records: the number of events (split),
 * the goroutines (goroutine), and for a run stored as an excerpt its windows (docs/schema.md,
 * "Excerpts").
 */
export interface RunShape {
  readonly eventCount: number;
  readonly goroutines?: readonly GoroutineInfo[];
  readonly excerpt?: ExcerptShape | null;
}

/**
 * The index in the whole run of each stored event, pushed every stored record in order: the
 * position in the stored records for a run stored whole; for an excerpt, counted on from each
 * window's events before it. `gap` is true from a window opened after a gap (one not starting
 * at the run's first record) onwards.
 */
function wholeRunEvents(excerpt: ExcerptShape | null | undefined) {
  const starts = new Map((excerpt?.windows ?? []).map((w, i) => [w.firstSeq, { ...w, i }]));
  let events = 0;
  let sinceGap = Infinity;
  return {
    /** Called with every record's stored index before eventIndex. */
    at(index: number): void {
      const window = starts.get(index);
      if (window === undefined) return;
      if (window.i > 0 || window.eventsBefore > 0) sinceGap = 0;
      events = window.eventsBefore;
    },
    /** The whole-run index of this event; call once per event. */
    next(): number {
      sinceGap++;
      return events++;
    },
    /** Events stepped since the last gap (Infinity in a run stored whole, or before any gap). */
    get sinceGap(): number {
      return sinceGap;
    },
  };
}

/** Takes one run's records in order; `index` is the record's position in the run. */
export type SampleStepper = (record: GoroutineRecord, index: number) => void;

/** Index into the event sequence of the split point: floor(n · percent / 100), always < n. */
export function splitIndex(eventCount: number, percent: number): number {
  return Math.min(eventCount - 1, Math.floor((eventCount * percent) / 100));
}

/** Bucket a goroutine count: 0, 1, 2, 3-4, 5-8, 9+. */
export function bucket(n: number): string {
  if (n <= 2) return String(n);
  if (n <= 4) return "3-4";
  if (n <= 8) return "5-8";
  return "9+";
}

/** An event with the reason that distinguishes it: GoBlock(chan receive), GoSched(preempted), GoStart. */
export function eventLabel(record: GoroutineRecord): string {
  return (record.kind === "GoBlock" || record.kind === "GoSched") && record.reason !== ""
    ? `${record.kind}(${record.reason})`
    : record.kind;
}

/** The context key: bucketed counts per state and block reason, then the last two events (oldest first). */
export function contextKey(counts: SchedulerCounts, lastEvents: readonly string[]): string {
  const waits = Object.entries(counts.waitingByReason).map(
    ([reason, n]) => `${reason === "" ? "unspecified" : reason}:${bucket(n)}`,
  );
  return (
    `running=${bucket(counts.running)} runnable=${bucket(counts.runnable)} ` +
    `syscall=${bucket(counts.syscall)} waiting={${waits.join(",")}} last=${lastEvents.join(",")}`
  );
}

/**
 * A one-pass stepper for `abstraction`: pushed every record of one run in order, it calls
 * `visit` for each sample, in record order, with the key docs/dataset.md gives it:
 * - split: `split=P` at the event whose index in the event sequence is splitIndex(n, P);
 * - depth: `depth=i` at the i-th event;
 * - goroutine: `goroutine=<canonical id> step=<k>` at the subject's own k-th event (without
 *   goroutine info, goroutines are numbered #1, #2, … by first appearance);
 * - context: the scheduler state before the event and the last two event labels.
 */
export function sampleStepper(abstraction: Abstraction, run: RunShape, visit: SampleVisitor): SampleStepper {
  const whole = wholeRunEvents(run.excerpt);
  switch (abstraction) {
    case "split": {
      // The event index of each split point → the indices (positions) of the points there.
      const targets = new Map<number, number[]>();
      const eventCount = run.excerpt?.events ?? run.eventCount;
      if (eventCount > 0) {
        SPLIT_POINTS.forEach((percent, point) => {
          const at = splitIndex(eventCount, percent);
          targets.set(at, [...(targets.get(at) ?? []), point]);
        });
      }
      return (record, index) => {
        whole.at(index);
        if (!isEventType(record.kind)) return;
        for (const point of targets.get(whole.next()) ?? [])
          visit(`split=${SPLIT_POINTS[point]}`, index, record.kind, point);
      };
    }
    case "depth": {
      return (record, index) => {
        whole.at(index);
        if (!isEventType(record.kind)) return;
        const position = whole.next();
        visit(`depth=${position}`, index, record.kind, position);
      };
    }
    case "goroutine": {
      // A goroutine's own step count is lost in a gap: an excerpt gives samples up to its first gap only.
      const canonical = new Map<number, string>();
      for (const info of run.goroutines ?? []) canonical.set(info.goroutine, info.canonicalId);
      const steps = new Map<number, number>();
      return (record, index) => {
        whole.at(index);
        if (whole.sinceGap !== Infinity) return;
        if (!canonical.has(record.goroutine)) canonical.set(record.goroutine, `#${canonical.size + 1}`);
        if (!isEventType(record.kind)) return;
        const position = whole.next();
        const step = steps.get(record.goroutine) ?? 0;
        steps.set(record.goroutine, step + 1);
        visit(`goroutine=${canonical.get(record.goroutine)} step=${step}`, index, record.kind, position);
      };
    }
    case "context": {
      // The scheduler state is restored at a gap (the window's Initial records), the last two
      // events are not: the first two events after a gap give no sample.
      const tracker = newSchedulerTracker();
      let last1 = "-";
      let last2 = "-";
      return (record, index) => {
        whole.at(index);
        if (isEventType(record.kind)) {
          const position = whole.next();
          if (whole.sinceGap > 2)
            visit(contextKey(snapshotCounts(tracker), [last2, last1]), index, record.kind, position);
          last2 = last1;
          last1 = eventLabel(record);
        }
        applyRecord(tracker, record);
      };
    }
  }
}
