// Excerpts: how ingest stores a run whose trace gives more records than the cap on stored
// records (ingest --max-stored-records, docs/schema.md "Excerpts"). Its records are kept in
// windows spread along the whole run — the first records, and a window around each eighth of
// its events (so around the split abstraction's 25, 50 and 75 % points too) — numbered densely
// from 0, each window after a gap opening with Initial records that bring every goroutine whose
// state changed in the gap to its state at the window's start, as a trace started there would.
// A reader replaying the stored records therefore knows each goroutine's exact state at every
// stored record; run_excerpts says where each window starts in the whole run (its seq and the
// events before it), so depth and split samples keep the keys the whole run gives them. Leak
// analysis never reads an excerpt: ingest folds every record into run_end_states.

import {
  applyRecord,
  isEventType,
  newSchedulerTracker,
  type GoroutineRecord,
  type GoroutineState,
  type SchedulerTracker,
} from "../core/index.js";

/** Windows of an excerpt: the run's start and one ending near each eighth of its events. */
export const EXCERPT_WINDOWS = 8;

/** Share of a window before the event it is placed at (the rest follows it). */
const BEFORE_SHARE = 3 / 4;

/** Where one window of an excerpt starts: a row of run_excerpts. */
export interface ExcerptWindow {
  /** The stored seq of the window's first record (its first Initial record after a gap). */
  readonly firstSeq: number;
  /** The seq in the whole run of the window's first record of the run (not an added Initial record). */
  readonly sourceSeq: number;
  /** Six-type events of the whole run before that record. */
  readonly eventsBefore: number;
}

/** How a run is stored as an excerpt: its totals and its windows in order. */
export interface Excerpt {
  /** Records and six-type events of the whole run. */
  readonly records: number;
  readonly events: number;
  readonly windows: readonly ExcerptWindow[];
}

/**
 * The event indices an excerpt's windows are placed at: 0 (the run's start), then
 * floor(events · j / EXCERPT_WINDOWS) for j = 1 … EXCERPT_WINDOWS − 1 — the split points
 * floor(n · P / 100) of P = 25, 50, 75 among them. Pure.
 *
 * @example excerptTargets(800) // => [0, 100, 200, 300, 400, 500, 600, 700]
 */
export function excerptTargets(events: number): number[] {
  const targets = [0];
  for (let j = 1; j < EXCERPT_WINDOWS; j++) targets.push(Math.floor((events * j) / EXCERPT_WINDOWS));
  return [...new Set(targets)].filter((t) => t < events);
}

/** The name Go's trace gives a goroutine's state, as an Initial record's reason (initialState reads it back). */
function stateName(state: GoroutineState | undefined): string {
  switch (state?.status) {
    case "running":
      return "Running";
    case "runnable":
      return "Runnable";
    case "syscall":
      return "Syscall";
    case "waiting":
      return `Waiting: ${state.reason}`;
    default:
      return "NotExist";
  }
}

function sameState(a: GoroutineState | undefined, b: GoroutineState | undefined): boolean {
  const live = (s: GoroutineState | undefined) => s !== undefined && s.status !== "ended";
  if (!live(a) || !live(b)) return live(a) === live(b);
  return a!.status === b!.status && a!.reason === b!.reason;
}

interface Held {
  readonly record: GoroutineRecord;
  /** Six-type events of the run before this record. */
  readonly eventsBefore: number;
}

/**
 * Chooses and renumbers the records of one run to store as an excerpt of about `cap` records
 * (plus each window's opening Initial records), given the run's totals from a first count.
 * Pushed every record of the run in order (memory: one window's records and the goroutines'
 * states); hands the records to store to `store`, renumbered densely, in order.
 */
export function excerptWriter(
  totals: { readonly records: number; readonly events: number },
  cap: number,
  store: (record: GoroutineRecord) => void,
) {
  const width = Math.max(2, Math.floor(cap / EXCERPT_WINDOWS));
  const before = Math.max(1, Math.floor(width * BEFORE_SHARE));
  const after = width - before;
  const targets = excerptTargets(totals.events);
  const windows: ExcerptWindow[] = [];
  // The run as it is: every record applied once it leaves the ring of the last `before` ones.
  const lagging: SchedulerTracker = newSchedulerTracker();
  // The run as a reader of the stored records knows it.
  const reader: SchedulerTracker = newSchedulerTracker();
  const ring: Held[] = [];
  let ringStart = 0;
  let position = 0; // seq in the whole run of the next record
  let events = 0;
  let stored = 0; // dense seq of the next stored record
  let storedUpTo = -1; // seq in the whole run of the last record stored
  let following = 0; // records still to store after a window's target
  let nextTarget = 0;

  const keep = (held: Held): void => {
    const record = { ...held.record, seq: stored++ };
    applyRecord(reader, record);
    store(record);
    storedUpTo = held.record.seq;
  };

  /** Opens a window at `first` (the oldest unstored held record): Initial records for the gap, then its row. */
  const open = (first: Held): void => {
    const firstSeq = stored;
    if (first.record.seq > storedUpTo + 1) {
      const gids = new Set([...lagging.goroutines.keys(), ...reader.goroutines.keys()]);
      for (const gid of [...gids].sort((a, b) => a - b)) {
        const now = lagging.goroutines.get(gid);
        if (now === undefined || sameState(now, reader.goroutines.get(gid))) continue;
        const initial: GoroutineRecord = {
          seq: stored++,
          timeNs: first.record.timeNs,
          kind: "Initial",
          goroutine: gid,
          actor: null,
          reason: stateName(now),
          site: null,
        };
        applyRecord(reader, initial);
        store(initial);
      }
    }
    windows.push({ firstSeq, sourceSeq: first.record.seq, eventsBefore: first.eventsBefore });
  };

  return {
    push(record: GoroutineRecord): void {
      const held: Held = { record: { ...record, seq: position++ }, eventsBefore: events };
      const isEvent = isEventType(record.kind);
      if (isEvent && events === targets[nextTarget]) {
        // The window at this target: the held records not stored yet before it (after a gap,
        // opened by Initial records), this record, and `after` more (the run's first window:
        // its first `width` records).
        nextTarget++;
        const unstored = ring.slice(ringStart).filter((h) => h.record.seq > storedUpTo);
        const first = unstored[0] ?? held;
        if (first.record.seq > storedUpTo + 1 || windows.length === 0) open(first);
        for (const h of unstored) keep(h);
        following = Math.max(following, windows.length === 1 && nextTarget === 1 ? width - unstored.length : after + 1);
      }
      if (isEvent) events++;
      if (following > 0) {
        following--;
        keep(held);
      }
      ring.push(held);
      if (ring.length - ringStart > before) applyRecord(lagging, ring[ringStart++].record);
      if (ringStart > 4 * before) {
        ring.splice(0, ringStart);
        ringStart = 0;
      }
    },
    /** The excerpt's row data once every record was pushed. */
    finish(): Excerpt {
      return { records: position, events, windows };
    },
  };
}
