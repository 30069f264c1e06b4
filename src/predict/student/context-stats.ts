// In-context evidence of a prefix (pure, incremental): what the run itself has shown so far —
// n-gram counts of its event tokens, each goroutine's own history and what followed it, when
// each event kind last happened, the run queue's and wait queue's order and ages, who woke whom,
// and how predictable the run has been to its own counts. The student's features read it.
// Invariant: after `observeRecord` of records[0 .. end) in order, every field describes exactly
// that prefix; nothing reads ahead.

import {
  contextCountsOf,
  eventToken,
  newContextNgramCounts,
  observeContextEvent,
  type ContextNgramCounts,
} from "../baselines.js";
import {
  EVENT_TYPES,
  isEventType,
  type EventType,
  type GoroutineRecord,
  type GoroutineStatus,
} from "../../core/index.js";

/** Order of the in-context n-gram: contexts of 0 … CONTEXT_ORDER − 1 previous tokens. */
export const CONTEXT_ORDER = 4;
/** Window over which the run's recent self-predictability is measured. */
export const PREDICTABILITY_WINDOW = 32;

const K = EVENT_TYPES.length;
const EVENT_INDEX: ReadonlyMap<string, number> = new Map(EVENT_TYPES.map((e, i) => [e, i]));

/** A goroutine's own recent tokens (oldest first, at most 2) and when it entered its status. */
interface OwnHistory {
  readonly tokens: string[];
  /** Event count of the prefix when the goroutine entered its current status. */
  since: number;
}

export interface ContextStats {
  /** Global in-context n-gram counts (see ContextNgramCounts). */
  readonly ngram: ContextNgramCounts;
  /** Pooled over goroutines: own last token → own next event (counts), and own last two tokens → own next event. */
  readonly ownNext1: Map<string, Float64Array>;
  readonly ownNext2: Map<string, Float64Array>;
  readonly own: Map<number, OwnHistory>;
  /** Goroutines by status, in the order they entered it (insertion order of the maps). */
  readonly running: Map<number, true>;
  readonly runnable: Map<number, true>;
  readonly waiting: Map<number, true>;
  /** Scheduler-keyed counts: (last token, bucketed running/runnable/waiting) → next event. */
  readonly keyed: Map<string, Float64Array>;
  /** Event count at the last event of each kind (−1: never), and its time. */
  readonly lastAt: Float64Array;
  readonly lastTimeNs: Float64Array;
  /** The last GoUnblock: its subject (the woken) and actor (the waker), or −1. */
  lastWoken: number;
  lastWaker: number;
  /** Six-type events observed. */
  events: number;
  /** Hits of the longest-seen-context argmax before each event: all, and the last PREDICTABILITY_WINDOW. */
  hits: number;
  readonly recentHits: Uint8Array;
  recentFilled: number;
}

export function newContextStats(): ContextStats {
  return {
    ngram: newContextNgramCounts(CONTEXT_ORDER),
    ownNext1: new Map(),
    ownNext2: new Map(),
    own: new Map(),
    running: new Map(),
    runnable: new Map(),
    waiting: new Map(),
    keyed: new Map(),
    lastAt: new Float64Array(K).fill(-1),
    lastTimeNs: new Float64Array(K),
    lastWoken: -1,
    lastWaker: -1,
    events: 0,
    hits: 0,
    recentHits: new Uint8Array(PREDICTABILITY_WINDOW),
    recentFilled: 0,
  };
}

const bucket3 = (n: number): number => (n >= 3 ? 3 : n);
const bucket4 = (n: number): number => (n <= 2 ? n : n <= 4 ? 3 : 4);

/** The scheduler-keyed context of the current prefix. */
export function keyedContext(stats: ContextStats): string {
  const last = stats.ngram.history.length > 0 ? stats.ngram.history[stats.ngram.history.length - 1] : "";
  return `${last}|${bucket3(stats.running.size)}|${bucket4(stats.runnable.size)}|${bucket4(stats.waiting.size)}`;
}

/** The most recently started running goroutine (the one a rollout blocks, yields or ends), or −1. */
export function currentGoroutine(stats: ContextStats): number {
  let found = -1;
  for (const g of stats.running.keys()) found = g;
  return found;
}

/** The first key of an ordered set (the longest in that status), or −1. */
export function oldestOf(set: ReadonlyMap<number, true>): number {
  for (const g of set.keys()) return g;
  return -1;
}

function countInto(table: Map<string, Float64Array>, key: string, event: number): void {
  let row = table.get(key);
  if (row === undefined) table.set(key, (row = new Float64Array(K)));
  row[event]++;
}

/** Argmax of the longest context the prefix has counts for, or −1 when none has any. */
function selfPrediction(ngram: ContextNgramCounts): number {
  for (let len = Math.min(ngram.order - 1, ngram.history.length); len >= 0; len--) {
    const row = contextCountsOf(ngram, len);
    if (row === null) continue;
    let best = -1;
    for (let i = 0; i < K; i++) if (row[i] > 0 && (best < 0 || row[i] > row[best])) best = i;
    if (best >= 0) return best;
  }
  return -1;
}

/**
 * Applies one record (of any kind) to the statistics; `status` is its subject's status after
 * it, as the scheduler-state tracker replays it (one rule for both, not two).
 */
export function observeRecord(stats: ContextStats, record: GoroutineRecord, status: GoroutineStatus | undefined): void {
  const g = record.goroutine;
  const event = isEventType(record.kind);
  // The scheduler-keyed context in which this event happened: the state before it.
  const key = event ? keyedContext(stats) : "";
  const was = stats.running.has(g)
    ? "running"
    : stats.runnable.has(g)
      ? "runnable"
      : stats.waiting.has(g)
        ? "waiting"
        : undefined;
  if (was !== status) {
    stats.running.delete(g);
    stats.runnable.delete(g);
    stats.waiting.delete(g);
    if (status === "running") stats.running.set(g, true);
    else if (status === "runnable") stats.runnable.set(g, true);
    else if (status === "waiting") stats.waiting.set(g, true);
  }
  let own = stats.own.get(g);
  if (own === undefined) stats.own.set(g, (own = { tokens: [], since: stats.events }));
  if (was !== status) own.since = stats.events;
  if (!isEventType(record.kind)) return;

  const kind: EventType = record.kind;
  const e = EVENT_INDEX.get(kind) ?? 0;
  const hit = selfPrediction(stats.ngram) === e ? 1 : 0;
  stats.hits += hit;
  stats.recentHits[stats.events % PREDICTABILITY_WINDOW] = hit;
  stats.recentFilled = Math.min(PREDICTABILITY_WINDOW, stats.recentFilled + 1);
  if (event) countInto(stats.keyed, key, e);
  observeContextEvent(stats.ngram, kind, record.reason);

  const tokens = own.tokens;
  if (tokens.length >= 1) countInto(stats.ownNext1, tokens[tokens.length - 1], e);
  if (tokens.length >= 2) countInto(stats.ownNext2, `${tokens[0]}|${tokens[1]}`, e);
  tokens.push(eventToken(kind, record.reason));
  if (tokens.length > 2) tokens.shift();

  if (kind === "GoUnblock") {
    stats.lastWoken = g;
    stats.lastWaker = record.actor ?? -1;
  }
  stats.lastAt[e] = stats.events;
  stats.lastTimeNs[e] = record.timeNs;
  stats.events++;
}
