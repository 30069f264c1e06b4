// Features of a prefix (pure): the scheduler state replayed exactly from the records, the
// last k records with reasons and actor/subject roles, depth, timing, GOMAXPROCS and the
// program's static features. FEATURE_SPEC names every column; adapters store it, and a
// loaded adapter refuses a spec it was not trained with.
// Invariant: features of records[0 .. end) never look at records[end ..] (no future leak).

import {
  applyRecord,
  goroutineState,
  newSchedulerTracker,
  type GoroutineStatus,
  type SchedulerTracker,
} from "../dataset/scheduler-state.js";
import type { Prefix } from "../dataset/types.js";
import type { GoroutineRecord, RecordKind } from "../trace/types.js";
import { STATIC_FEATURE_KEYS, type StaticFeatures } from "./static-features.js";

/** Bump whenever a column's meaning, order or scaling changes. */
export const FEATURE_VERSION = 1;

/** Number of most recent records described one by one. */
export const RECENT_RECORDS = 4;
/** Window of the recent kind histogram. */
export const HISTOGRAM_WINDOW = 16;

export const RECORD_KINDS: readonly RecordKind[] = [
  "GoCreate", "GoStart", "GoBlock", "GoUnblock", "GoSched", "GoEnd",
  "SyscallEnter", "SyscallExit", "SyscallUnblock", "Initial",
];

/** Reason classes of a record: block reasons, the two GoSched kinds, and none. */
export const REASON_CLASSES = [
  "none", "chan send", "chan receive", "select", "sync", "cond", "sleep", "forever", "preempted", "yield", "other",
] as const;
export type ReasonClass = (typeof REASON_CLASSES)[number];

/** Block-reason classes a waiting goroutine can be in (REASON_CLASSES without none/yield). */
const WAIT_CLASSES: readonly ReasonClass[] = ["chan send", "chan receive", "select", "sync", "cond", "sleep", "forever", "preempted", "other"];
const STATUSES: readonly GoroutineStatus[] = ["runnable", "running", "waiting", "syscall", "ended"];

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
export function recordReasonClass(record: GoroutineRecord): ReasonClass {
  if (record.kind === "GoBlock" || record.kind === "GoSched") return blockReasonClass(record.reason);
  return "none";
}

/** The documented column list; `names[i]` describes column i of every feature vector. */
export interface FeatureSpec {
  readonly version: number;
  readonly recentRecords: number;
  readonly histogramWindow: number;
  readonly names: readonly string[];
}

function buildNames(): string[] {
  const names: string[] = [];
  for (const s of ["running", "runnable", "waiting", "syscall", "live", "created", "ended"]) names.push(`state.log1p.${s}`);
  for (const s of ["running", "runnable", "waiting", "syscall"]) names.push(`state.frac.${s}`);
  for (const c of WAIT_CLASSES) names.push(`state.waiting.log1p.${c}`, `state.waiting.frac.${c}`);
  names.push("procs.log2", "procs.is1", "procs.runningPerP", "procs.idleP", "procs.runnableWithIdleP", "state.noLive", "state.anyRunnable");
  names.push("progress.endedPerCreated", "progress.endedPerKnown");
  for (const s of [...STATUSES, "unknown"]) names.push(`root.status.${s}`);
  for (let k = 1; k <= RECENT_RECORDS; k++) {
    for (const kind of [...RECORD_KINDS, "none"]) names.push(`recent${k}.kind.${kind}`);
    for (const c of REASON_CLASSES) names.push(`recent${k}.reason.${c}`);
    names.push(`recent${k}.actorIsSubject`, `recent${k}.actorNull`, `recent${k}.subjectIsRoot`, `recent${k}.actorIsRoot`, `recent${k}.sameSubjectAsPrevious`);
    for (const s of STATUSES) names.push(`recent${k}.subjectNow.${s}`);
  }
  for (const kind of RECORD_KINDS) names.push(`window.frac.${kind}`);
  for (const kind of RECORD_KINDS) names.push(`prefix.frac.${kind}`);
  names.push("last.subjectSteps.log1p", "depth.records.log1p", "depth.events.log1p");
  names.push("time.sincePrevious.log1pUs", "time.sinceStart.log1pUs", "time.lastGap2.log1pUs");
  for (const key of STATIC_FEATURE_KEYS) names.push(`static.log1p.${key}`);
  names.push("static.present");
  return names;
}

export const FEATURE_SPEC: FeatureSpec = {
  version: FEATURE_VERSION,
  recentRecords: RECENT_RECORDS,
  histogramWindow: HISTOGRAM_WINDOW,
  names: buildNames(),
};
export const FEATURE_COUNT = FEATURE_SPEC.names.length;

/**
 * Walks one run's records forward and writes the features of growing prefixes.
 * Calls to `featuresAt` must use non-decreasing `end`; each record is applied once,
 * so featurising every prefix of a run costs O(records × features).
 */
export interface PrefixFeaturizer {
  featuresAt(end: number, out: Float64Array | Float32Array, offset?: number): void;
  /** The scheduler state after the last `featuresAt` prefix (read-only for callers). */
  readonly tracker: SchedulerTracker;
}

/**
 * The root goroutine is the one marked isRoot in `prefix.goroutines` when given, else the
 * subject of the run's first record (main or the test function).
 */
export function rootGoroutine(records: readonly GoroutineRecord[], goroutines?: Prefix["goroutines"]): number {
  const marked = goroutines?.find((g) => g.isRoot);
  if (marked !== undefined) return marked.goroutine;
  return records.length > 0 ? records[0].goroutine : -1;
}

export function newPrefixFeaturizer(
  records: readonly GoroutineRecord[],
  procs: number,
  staticFeatures: StaticFeatures | null,
  root = rootGoroutine(records),
): PrefixFeaturizer {
  const tracker: SchedulerTracker = newSchedulerTracker();
  const prefixKindCounts = new Float64Array(RECORD_KINDS.length);
  const staticColumns = staticVector(staticFeatures);
  let applied = 0;
  let events = 0;
  return {
    tracker,
    featuresAt(end, out, offset = 0) {
      if (end < applied) throw new RangeError(`prefix featurizer moved backwards: ${end} < ${applied}`);
      const stop = Math.min(end, records.length);
      for (; applied < stop; applied++) {
        const record = records[applied];
        applyRecord(tracker, record);
        const kind = KIND_INDEX.get(record.kind) ?? 0;
        prefixKindCounts[kind]++;
        if (kind < 6) events++;
      }
      writeFeatures(records, applied, procs, tracker, root, prefixKindCounts, events, staticColumns, out, offset);
    },
  };
}

/** The features of one prefix (replays it from the start). */
export function prefixFeatures(prefix: Prefix, staticFeatures: StaticFeatures | null): Float64Array {
  const out = new Float64Array(FEATURE_COUNT);
  newPrefixFeaturizer(prefix.records, prefix.procs, staticFeatures, rootGoroutine(prefix.records, prefix.goroutines)).featuresAt(prefix.end, out);
  return out;
}

/**
 * Features of many prefixes, row i for prefixes[i] (rows × FEATURE_COUNT). Prefixes of the
 * same run (same `records` array) are featurised in one forward walk, so the cost is linear
 * in the records of each run rather than in the sum of prefix lengths.
 */
export function featurizePrefixes(
  prefixes: readonly Prefix[],
  staticOf: (program: string) => StaticFeatures | null,
  visit?: (index: number, featurizer: PrefixFeaturizer) => void,
): Float32Array {
  const out = new Float32Array(prefixes.length * FEATURE_COUNT);
  const byRun = new Map<readonly GoroutineRecord[], number[]>();
  prefixes.forEach((prefix, i) => {
    const list = byRun.get(prefix.records);
    if (list === undefined) byRun.set(prefix.records, [i]);
    else list.push(i);
  });
  for (const indices of byRun.values()) {
    indices.sort((a, b) => prefixes[a].end - prefixes[b].end || a - b);
    const first = prefixes[indices[0]];
    const featurizer = newPrefixFeaturizer(first.records, first.procs, staticOf(first.program), rootGoroutine(first.records, first.goroutines));
    for (const i of indices) {
      featurizer.featuresAt(prefixes[i].end, out, i * FEATURE_COUNT);
      visit?.(i, featurizer);
    }
  }
  return out;
}

function staticVector(features: StaticFeatures | null): Float64Array {
  const v = new Float64Array(STATIC_FEATURE_KEYS.length + 1);
  if (features === null) return v;
  STATIC_FEATURE_KEYS.forEach((key, i) => {
    v[i] = Math.log1p(features[key]);
  });
  v[STATIC_FEATURE_KEYS.length] = 1;
  return v;
}

const log1pUs = (ns: number): number => Math.log1p(Math.max(0, ns) / 1000);

const KIND_INDEX: ReadonlyMap<RecordKind, number> = new Map(RECORD_KINDS.map((kind, i) => [kind, i]));
const WAIT_CLASS_INDEX: ReadonlyMap<ReasonClass, number> = new Map(WAIT_CLASSES.map((cls, i) => [cls, i]));
const REASON_INDEX: ReadonlyMap<ReasonClass, number> = new Map(REASON_CLASSES.map((cls, i) => [cls, i]));
const STATUS_INDEX: ReadonlyMap<GoroutineStatus, number> = new Map(STATUSES.map((s, i) => [s, i]));

/** Writes `values` one-hot style: n zeros with a 1 at `hot` (no 1 when hot < 0). */
function oneHot(out: Float64Array | Float32Array, at: number, n: number, hot: number): number {
  for (let j = 0; j < n; j++) out[at + j] = j === hot ? 1 : 0;
  return at + n;
}

// Scratch buffers reused across calls (features are computed synchronously, one at a time).
const waitingScratch = new Float64Array(WAIT_CLASSES.length);
const windowScratch = new Float64Array(RECORD_KINDS.length);

function writeFeatures(
  records: readonly GoroutineRecord[],
  end: number,
  procs: number,
  tracker: SchedulerTracker,
  root: number,
  prefixKindCounts: Float64Array,
  events: number,
  staticColumns: Float64Array,
  out: Float64Array | Float32Array,
  offset: number,
): void {
  let i = offset;
  const c = tracker.statusCounts;
  const live = c.running + c.runnable + c.waiting + c.syscall;
  out[i++] = Math.log1p(c.running);
  out[i++] = Math.log1p(c.runnable);
  out[i++] = Math.log1p(c.waiting);
  out[i++] = Math.log1p(c.syscall);
  out[i++] = Math.log1p(live);
  out[i++] = Math.log1p(tracker.created);
  out[i++] = Math.log1p(tracker.ended);
  out[i++] = live > 0 ? c.running / live : 0;
  out[i++] = live > 0 ? c.runnable / live : 0;
  out[i++] = live > 0 ? c.waiting / live : 0;
  out[i++] = live > 0 ? c.syscall / live : 0;
  waitingScratch.fill(0);
  for (const [reason, n] of tracker.waitingByReason) waitingScratch[WAIT_CLASS_INDEX.get(blockReasonClass(reason)) ?? WAIT_CLASSES.length - 1] += n;
  for (let j = 0; j < WAIT_CLASSES.length; j++) {
    out[i++] = Math.log1p(waitingScratch[j]);
    out[i++] = live > 0 ? waitingScratch[j] / live : 0;
  }
  const p = Math.max(1, procs);
  out[i++] = Math.log2(p);
  out[i++] = p === 1 ? 1 : 0;
  out[i++] = Math.min(2, c.running / p);
  out[i++] = c.running < p ? 1 : 0;
  out[i++] = c.runnable > 0 && c.running < p ? 1 : 0;
  out[i++] = live === 0 ? 1 : 0;
  out[i++] = c.runnable > 0 ? 1 : 0;
  out[i++] = tracker.ended / (tracker.created + 1);
  out[i++] = tracker.goroutines.size > 0 ? c.ended / tracker.goroutines.size : 0;
  const rootState = goroutineState(tracker, root);
  i = oneHot(out, i, STATUSES.length + 1, rootState === undefined ? STATUSES.length : (STATUS_INDEX.get(rootState.status) ?? -1));

  for (let k = 1; k <= RECENT_RECORDS; k++) {
    const index = end - k;
    const record = index >= 0 ? records[index] : undefined;
    i = oneHot(out, i, RECORD_KINDS.length + 1, record === undefined ? RECORD_KINDS.length : (KIND_INDEX.get(record.kind) ?? -1));
    i = oneHot(out, i, REASON_CLASSES.length, record === undefined ? -1 : (REASON_INDEX.get(recordReasonClass(record)) ?? -1));
    const previous = index - 1 >= 0 ? records[index - 1] : undefined;
    out[i++] = record !== undefined && record.actor === record.goroutine ? 1 : 0;
    out[i++] = record !== undefined && record.actor === null ? 1 : 0;
    out[i++] = record !== undefined && record.goroutine === root ? 1 : 0;
    out[i++] = record !== undefined && record.actor === root ? 1 : 0;
    out[i++] = record !== undefined && previous !== undefined && previous.goroutine === record.goroutine ? 1 : 0;
    const now = record === undefined ? undefined : goroutineState(tracker, record.goroutine)?.status;
    i = oneHot(out, i, STATUSES.length, now === undefined ? -1 : (STATUS_INDEX.get(now) ?? -1));
  }

  windowScratch.fill(0);
  const from = Math.max(0, end - HISTOGRAM_WINDOW);
  for (let j = from; j < end; j++) windowScratch[KIND_INDEX.get(records[j].kind) ?? 0]++;
  for (let j = 0; j < RECORD_KINDS.length; j++) out[i++] = end > from ? windowScratch[j] / (end - from) : 0;
  for (let j = 0; j < RECORD_KINDS.length; j++) out[i++] = end > 0 ? prefixKindCounts[j] / end : 0;

  const last = end > 0 ? records[end - 1] : undefined;
  out[i++] = last === undefined ? 0 : Math.log1p(goroutineState(tracker, last.goroutine)?.steps ?? 0);
  out[i++] = Math.log1p(end);
  out[i++] = Math.log1p(events);
  const t0 = records.length > 0 ? records[0].timeNs : 0;
  out[i++] = end >= 2 ? log1pUs(records[end - 1].timeNs - records[end - 2].timeNs) : 0;
  out[i++] = end >= 1 ? log1pUs(records[end - 1].timeNs - t0) : 0;
  out[i++] = end >= 3 ? log1pUs(records[end - 2].timeNs - records[end - 3].timeNs) : 0;
  for (let j = 0; j < staticColumns.length; j++) out[i++] = staticColumns[j];
  if (i - offset !== FEATURE_COUNT) throw new Error(`feature writer wrote ${i - offset} columns, spec has ${FEATURE_COUNT}`);
}
