// Features of a prefix (pure), as a table of blocks: each block declares its column names and
// its writer together (the helpers below derive both from one list), so names and columns
// cannot drift apart. Blocks: the scheduler state replayed exactly from the records, the last
// k records with reasons and roles, depth and timing, in-context evidence of the run itself
// (its own n-gram counts, each goroutine's own history, queues, who woke whom, time since each
// event kind), the training n-gram's answer (stacking), which events are possible, and the
// program's static features. FEATURE_SPEC names every column; adapters store it, and a loaded
// adapter refuses a spec it was not trained with.
// Invariant: features of records[0 .. end) never look at records[end ..] (no future leak).

import type { Prefix } from "../../dataset/index.js";
import { contextCountsOf, contextNgramProbabilities, ngramProbabilities, type NgramModel } from "../baselines.js";
import {
  applyRecord,
  EVENT_TYPES,
  goroutineState,
  newSchedulerTracker,
  RECORD_KINDS,
  type GoroutineRecord,
  type GoroutineStatus,
  type RecordKind,
  type SchedulerTracker,
} from "../../core/index.js";
import {
  CONTEXT_ORDER,
  PREDICTABILITY_WINDOW,
  currentGoroutine,
  keyedContext,
  newContextStats,
  observeRecord,
  oldestOf,
  type ContextStats,
} from "./context-stats.js";
import { writeFeasibleEvents } from "./feasibility.js";
import { REASON_CLASSES, WAIT_CLASSES, blockReasonClass, recordReasonClass, type ReasonClass } from "./reasons.js";
import { STATIC_FEATURE_KEYS, type StaticFeatures } from "./static-features.js";

/**
 * Bump whenever a column's meaning, order or scaling changes. Version 2 added the in-context
 * blocks (ctx.*, own.*, queue.*, wake.*, since.*), the training n-gram (ngram.*) and the
 * feasible-event flags (feasible.*).
 */
export const FEATURE_VERSION = 2;

/** Number of most recent records described one by one. */
export const RECENT_RECORDS = 4;
/** Window of the recent kind histogram. */
export const HISTOGRAM_WINDOW = 16;

const K = EVENT_TYPES.length;
const STATUSES: readonly GoroutineStatus[] = ["runnable", "running", "waiting", "syscall", "ended"];

/** The documented column list; `names[i]` describes column i of every feature vector. */
export interface FeatureSpec {
  readonly version: number;
  readonly recentRecords: number;
  readonly histogramWindow: number;
  readonly names: readonly string[];
}

/** What the features of a prefix are computed from besides its records. */
export interface FeatureInputs {
  /** Static features of a program's source, or null (columns zero, static.present 0). */
  readonly staticOf: (program: string) => StaticFeatures | null;
  /** The training n-gram (stacked as the ngram.* columns, and the base of ctx.mix); null: uniform. */
  readonly ngram: NgramModel | null;
}

export const NO_FEATURE_INPUTS: FeatureInputs = { staticOf: () => null, ngram: null };

/** Everything a block may read about the prefix records[0 .. end). */
interface PrefixView {
  readonly records: readonly GoroutineRecord[];
  readonly end: number;
  readonly procs: number;
  readonly root: number;
  readonly tracker: SchedulerTracker;
  readonly stats: ContextStats;
  /** Records of each RECORD_KINDS kind in the prefix. */
  readonly kindCounts: Float64Array;
  readonly staticColumns: Float64Array;
  readonly ngram: NgramModel | null;
}

/** A block of columns: its names and a writer of exactly that many values. */
interface FeatureBlock {
  readonly names: readonly string[];
  readonly write: (v: PrefixView, out: Float64Array) => void;
}

/** Scalar columns, each a name and its value. */
function scalars(columns: readonly (readonly [string, (v: PrefixView) => number])[]): FeatureBlock {
  return {
    names: columns.map(([name]) => name),
    write: (v, out) => {
      for (let j = 0; j < columns.length; j++) out[j] = columns[j][1](v);
    },
  };
}

/** One-hot over `labels` (`name.label`); an index outside them writes all zeros. */
function oneHot(name: string, labels: readonly string[], index: (v: PrefixView) => number): FeatureBlock {
  return {
    names: labels.map((l) => `${name}.${l}`),
    write: (v, out) => {
      const hot = index(v);
      if (hot >= 0 && hot < labels.length) out[hot] = 1;
    },
  };
}

/** A vector block over `labels`: `fill` writes into a zeroed buffer of exactly labels.length. */
function vector(
  name: string,
  labels: readonly string[],
  fill: (v: PrefixView, out: Float64Array) => void,
): FeatureBlock {
  return { names: labels.map((l) => `${name}.${l}`), write: fill };
}

/** A distribution over the events (or zeros), its log (floored at 1e-4), and log1p of its support. */
function countsBlock(name: string, counts: (v: PrefixView) => Float64Array | null): FeatureBlock {
  return vector(name, [...EVENT_TYPES.map((e) => `p.${e}`), "log1pCount"], (v, out) => {
    const row = counts(v);
    if (row === null) return;
    let n = 0;
    for (let c = 0; c < K; c++) n += row[c];
    if (n === 0) return;
    for (let c = 0; c < K; c++) out[c] = row[c] / n;
    out[K] = Math.log1p(n);
  });
}

/** A probability vector and its log (floored at 1e-4): the log columns let a linear layer reproduce it. */
function probabilityBlock(name: string, probabilities: (v: PrefixView) => readonly number[]): FeatureBlock {
  return vector(name, [...EVENT_TYPES.map((e) => `p.${e}`), ...EVENT_TYPES.map((e) => `log.${e}`)], (v, out) => {
    const p = probabilities(v);
    for (let c = 0; c < K; c++) {
      out[c] = p[c];
      out[K + c] = Math.log(Math.max(p[c], 1e-4));
    }
  });
}

const log1pUs = (ns: number): number => Math.log1p(Math.max(0, ns) / 1000);
const KIND_INDEX: ReadonlyMap<RecordKind, number> = new Map(RECORD_KINDS.map((kind, i) => [kind, i]));
const WAIT_CLASS_INDEX: ReadonlyMap<ReasonClass, number> = new Map(WAIT_CLASSES.map((cls, i) => [cls, i]));
const REASON_INDEX: ReadonlyMap<ReasonClass, number> = new Map(REASON_CLASSES.map((cls, i) => [cls, i]));
const STATUS_INDEX: ReadonlyMap<GoroutineStatus, number> = new Map(STATUSES.map((s, i) => [s, i]));
const EVENT_INDEX: ReadonlyMap<string, number> = new Map(EVENT_TYPES.map((e, i) => [e, i]));

const live = (v: PrefixView): number => {
  const c = v.tracker.statusCounts;
  return c.running + c.runnable + c.waiting + c.syscall;
};
const share = (n: number, of: number): number => (of > 0 ? n / of : 0);
const statusOf = (v: PrefixView, g: number): GoroutineStatus | undefined =>
  g < 0 ? undefined : goroutineState(v.tracker, g)?.status;
const recordAt = (v: PrefixView, k: number): GoroutineRecord | undefined =>
  v.end - k >= 0 ? v.records[v.end - k] : undefined;

/** Kind and reason class of a token ("GoBlock:chan receive" → GoBlock, chan receive). */
function tokenParts(token: string | undefined): { kind: number; reason: number } {
  if (token === undefined) return { kind: -1, reason: -1 };
  const colon = token.indexOf(":");
  const kind = colon < 0 ? token : token.slice(0, colon);
  const reason = colon < 0 ? "none" : blockReasonClass(token.slice(colon + 1));
  return { kind: EVENT_INDEX.get(kind) ?? -1, reason: REASON_INDEX.get(reason) ?? -1 };
}

const ownTokens = (v: PrefixView, g: number): readonly string[] => (g < 0 ? [] : (v.stats.own.get(g)?.tokens ?? []));

function waitingByClass(v: PrefixView, out: Float64Array): void {
  for (const [reason, n] of v.tracker.waitingByReason)
    out[WAIT_CLASS_INDEX.get(blockReasonClass(reason)) ?? WAIT_CLASSES.length - 1] += n;
}

function recentBlocks(k: number): FeatureBlock[] {
  const at = (v: PrefixView): GoroutineRecord | undefined => recordAt(v, k);
  return [
    oneHot(`recent${k}.kind`, [...RECORD_KINDS, "none"], (v) => {
      const r = at(v);
      return r === undefined ? RECORD_KINDS.length : (KIND_INDEX.get(r.kind) ?? -1);
    }),
    oneHot(`recent${k}.reason`, REASON_CLASSES, (v) => {
      const r = at(v);
      return r === undefined ? -1 : (REASON_INDEX.get(recordReasonClass(r)) ?? -1);
    }),
    scalars([
      [`recent${k}.actorIsSubject`, (v) => (at(v)?.actor === at(v)?.goroutine && at(v) !== undefined ? 1 : 0)],
      [`recent${k}.actorNull`, (v) => (at(v) !== undefined && at(v)?.actor === null ? 1 : 0)],
      [`recent${k}.subjectIsRoot`, (v) => (at(v)?.goroutine === v.root ? 1 : 0)],
      [`recent${k}.actorIsRoot`, (v) => (at(v) !== undefined && at(v)?.actor === v.root ? 1 : 0)],
      [
        `recent${k}.sameSubjectAsPrevious`,
        (v) => (at(v) !== undefined && recordAt(v, k + 1)?.goroutine === at(v)?.goroutine ? 1 : 0),
      ],
    ]),
    oneHot(`recent${k}.subjectNow`, STATUSES, (v) => {
      const r = at(v);
      const now = r === undefined ? undefined : statusOf(v, r.goroutine);
      return now === undefined ? -1 : (STATUS_INDEX.get(now) ?? -1);
    }),
  ];
}

/** The feature table, in column order. */
const BLOCKS: readonly FeatureBlock[] = [
  scalars([
    ["state.log1p.running", (v) => Math.log1p(v.tracker.statusCounts.running)],
    ["state.log1p.runnable", (v) => Math.log1p(v.tracker.statusCounts.runnable)],
    ["state.log1p.waiting", (v) => Math.log1p(v.tracker.statusCounts.waiting)],
    ["state.log1p.syscall", (v) => Math.log1p(v.tracker.statusCounts.syscall)],
    ["state.log1p.live", (v) => Math.log1p(live(v))],
    ["state.log1p.created", (v) => Math.log1p(v.tracker.created)],
    ["state.log1p.ended", (v) => Math.log1p(v.tracker.ended)],
    ["state.frac.running", (v) => share(v.tracker.statusCounts.running, live(v))],
    ["state.frac.runnable", (v) => share(v.tracker.statusCounts.runnable, live(v))],
    ["state.frac.waiting", (v) => share(v.tracker.statusCounts.waiting, live(v))],
    ["state.frac.syscall", (v) => share(v.tracker.statusCounts.syscall, live(v))],
  ]),
  vector(
    "state.waiting",
    WAIT_CLASSES.flatMap((c) => [`log1p.${c}`, `frac.${c}`]),
    (v, out) => {
      const byClass = new Float64Array(WAIT_CLASSES.length);
      waitingByClass(v, byClass);
      const n = live(v);
      for (let j = 0; j < WAIT_CLASSES.length; j++) {
        out[2 * j] = Math.log1p(byClass[j]);
        out[2 * j + 1] = share(byClass[j], n);
      }
    },
  ),
  scalars([
    ["procs.log2", (v) => Math.log2(Math.max(1, v.procs))],
    ["procs.is1", (v) => (Math.max(1, v.procs) === 1 ? 1 : 0)],
    ["procs.runningPerP", (v) => Math.min(2, v.tracker.statusCounts.running / Math.max(1, v.procs))],
    ["procs.idleP", (v) => (v.tracker.statusCounts.running < Math.max(1, v.procs) ? 1 : 0)],
    [
      "procs.runnableWithIdleP",
      (v) => (v.tracker.statusCounts.runnable > 0 && v.tracker.statusCounts.running < Math.max(1, v.procs) ? 1 : 0),
    ],
    ["state.noLive", (v) => (live(v) === 0 ? 1 : 0)],
    ["state.anyRunnable", (v) => (v.tracker.statusCounts.runnable > 0 ? 1 : 0)],
    ["progress.endedPerCreated", (v) => v.tracker.ended / (v.tracker.created + 1)],
    ["progress.endedPerKnown", (v) => share(v.tracker.statusCounts.ended, v.tracker.goroutines.size)],
  ]),
  oneHot("root.status", [...STATUSES, "unknown"], (v) => {
    const s = statusOf(v, v.root);
    return s === undefined ? STATUSES.length : (STATUS_INDEX.get(s) ?? -1);
  }),
  ...Array.from({ length: RECENT_RECORDS }, (_, i) => recentBlocks(i + 1)).flat(),
  vector("window.frac", RECORD_KINDS, (v, out) => {
    const from = Math.max(0, v.end - HISTOGRAM_WINDOW);
    for (let j = from; j < v.end; j++) out[KIND_INDEX.get(v.records[j].kind) ?? 0]++;
    for (let j = 0; j < RECORD_KINDS.length; j++) out[j] = share(out[j], v.end - from);
  }),
  vector("prefix.frac", RECORD_KINDS, (v, out) => {
    for (let j = 0; j < RECORD_KINDS.length; j++) out[j] = share(v.kindCounts[j], v.end);
  }),
  scalars([
    [
      "last.subjectSteps.log1p",
      (v) => {
        const last = recordAt(v, 1);
        return last === undefined ? 0 : Math.log1p(goroutineState(v.tracker, last.goroutine)?.steps ?? 0);
      },
    ],
    ["depth.records.log1p", (v) => Math.log1p(v.end)],
    ["depth.events.log1p", (v) => Math.log1p(v.stats.events)],
    [
      "time.sincePrevious.log1pUs",
      (v) => (v.end >= 2 ? log1pUs(v.records[v.end - 1].timeNs - v.records[v.end - 2].timeNs) : 0),
    ],
    ["time.sinceStart.log1pUs", (v) => (v.end >= 1 ? log1pUs(v.records[v.end - 1].timeNs - v.records[0].timeNs) : 0)],
    [
      "time.lastGap2.log1pUs",
      (v) => (v.end >= 3 ? log1pUs(v.records[v.end - 2].timeNs - v.records[v.end - 3].timeNs) : 0),
    ],
  ]),
  vector("static", [...STATIC_FEATURE_KEYS.map((key) => `log1p.${key}`), "present"], (v, out) =>
    out.set(v.staticColumns),
  ),

  // In-context evidence: what this run has shown so far.
  vector("feasible", EVENT_TYPES, (v, out) => {
    const mask = new Uint8Array(K);
    writeFeasibleEvents(v.tracker, v.procs, mask, 0);
    for (let c = 0; c < K; c++) out[c] = mask[c];
  }),
  ...Array.from({ length: CONTEXT_ORDER }, (_, len) =>
    countsBlock(`ctx.ngram${len}`, (v) => contextCountsOf(v.stats.ngram, len)),
  ),
  probabilityBlock("ctx.mix", (v) => contextNgramProbabilities(v.stats.ngram, trainingNgram(v))),
  probabilityBlock("ngram.train", trainingNgram),
  countsBlock("ctx.keyed", (v) => v.stats.keyed.get(keyedContext(v.stats)) ?? null),
  scalars([
    ["ctx.selfHits.all", (v) => share(v.stats.hits, v.stats.events)],
    ["ctx.selfHits.recent", (v) => share(sum(v.stats.recentHits, v.stats.recentFilled), v.stats.recentFilled)],
    ["ctx.selfHits.window", (v) => v.stats.recentFilled / PREDICTABILITY_WINDOW],
  ]),
  scalars([
    ["own.current.exists", (v) => (currentGoroutine(v.stats) >= 0 ? 1 : 0)],
    ["own.current.isRoot", (v) => (currentGoroutine(v.stats) === v.root && v.root >= 0 ? 1 : 0)],
    ["own.current.steps.log1p", (v) => Math.log1p(goroutineState(v.tracker, currentGoroutine(v.stats))?.steps ?? 0)],
    [
      "own.current.runningFor.log1p",
      (v) => {
        const g = currentGoroutine(v.stats);
        return g < 0 ? 0 : Math.log1p(v.stats.events - (v.stats.own.get(g)?.since ?? v.stats.events));
      },
    ],
  ]),
  oneHot("own.current.lastKind", [...EVENT_TYPES, "none"], (v) => {
    const t = ownTokens(v, currentGoroutine(v.stats));
    return t.length === 0 ? K : tokenParts(t[t.length - 1]).kind;
  }),
  oneHot("own.current.lastReason", REASON_CLASSES, (v) => {
    const t = ownTokens(v, currentGoroutine(v.stats));
    return t.length === 0 ? -1 : tokenParts(t[t.length - 1]).reason;
  }),
  countsBlock("own.next1", (v) => {
    const t = ownTokens(v, currentGoroutine(v.stats));
    return t.length === 0 ? null : (v.stats.ownNext1.get(t[t.length - 1]) ?? null);
  }),
  countsBlock("own.next2", (v) => {
    const t = ownTokens(v, currentGoroutine(v.stats));
    return t.length < 2 ? null : (v.stats.ownNext2.get(`${t[0]}|${t[1]}`) ?? null);
  }),
  scalars([
    ["queue.oldestRunnableAge.log1p", (v) => age(v, oldestOf(v.stats.runnable))],
    ["queue.oldestWaitingAge.log1p", (v) => age(v, oldestOf(v.stats.waiting))],
  ]),
  oneHot("queue.oldestWaitingReason", WAIT_CLASSES, (v) => {
    const g = oldestOf(v.stats.waiting);
    const state = g < 0 ? undefined : goroutineState(v.tracker, g);
    return state === undefined ? -1 : (WAIT_CLASS_INDEX.get(blockReasonClass(state.reason)) ?? -1);
  }),
  scalars([
    ["wake.wokenRunnable", (v) => (statusOf(v, v.stats.lastWoken) === "runnable" ? 1 : 0)],
    ["wake.wokenRunning", (v) => (statusOf(v, v.stats.lastWoken) === "running" ? 1 : 0)],
    ["wake.wakerIsCurrent", (v) => (v.stats.lastWaker >= 0 && v.stats.lastWaker === currentGoroutine(v.stats) ? 1 : 0)],
  ]),
  vector(
    "since",
    EVENT_TYPES.flatMap((e) => [`${e}.log1pEvents`, `${e}.never`, `${e}.log1pUs`]),
    (v, out) => {
      const s = v.stats;
      const now = v.end > 0 ? v.records[v.end - 1].timeNs : 0;
      for (let c = 0; c < K; c++) {
        const seen = s.lastAt[c] >= 0;
        out[3 * c] = Math.log1p(seen ? s.events - s.lastAt[c] : s.events + 1);
        out[3 * c + 1] = seen ? 0 : 1;
        out[3 * c + 2] = seen ? log1pUs(now - s.lastTimeNs[c]) : 0;
      }
    },
  ),
];

function trainingNgram(v: PrefixView): readonly number[] {
  return v.ngram === null ? UNIFORM : ngramProbabilities(v.ngram, v.stats.ngram.history);
}
const UNIFORM: readonly number[] = EVENT_TYPES.map(() => 1 / K);

function age(v: PrefixView, g: number): number {
  if (g < 0) return 0;
  return Math.log1p(v.stats.events - (v.stats.own.get(g)?.since ?? v.stats.events));
}

function sum(values: Uint8Array, n: number): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += values[i];
  return s;
}

const BLOCK_WIDTHS: readonly number[] = BLOCKS.map((b) => b.names.length);
const MAX_WIDTH = Math.max(...BLOCK_WIDTHS);

export const FEATURE_SPEC: FeatureSpec = {
  version: FEATURE_VERSION,
  recentRecords: RECENT_RECORDS,
  histogramWindow: HISTOGRAM_WINDOW,
  names: BLOCKS.flatMap((b) => b.names),
};
export const FEATURE_COUNT = FEATURE_SPEC.names.length;

/**
 * The n-gram experts' log-probabilities (in-context `ngram-ctx:4` and the stacked training
 * n-gram): the columns `train --expert-skip` wires straight into the event logits.
 */
export const EXPERT_SKIP_COLUMNS: readonly number[] = FEATURE_SPEC.names.flatMap((name, j) =>
  name.startsWith("ctx.mix.log.") || name.startsWith("ngram.train.log.") ? [j] : [],
);

/**
 * Walks one run's records forward and writes the features of growing prefixes.
 * Calls to `featuresAt` must use non-decreasing `end`; each record is applied once,
 * so featurising every prefix of a run costs O(records × features).
 */
export interface PrefixFeaturizer {
  featuresAt(end: number, out: Float64Array | Float32Array, offset?: number): void;
  /** Writes the feasible-event flags (EVENT_TYPES order) of the last `featuresAt` prefix. */
  feasibleAt(out: Uint8Array, offset: number): void;
  /** The scheduler state after the last `featuresAt` prefix (read-only for callers). */
  readonly tracker: SchedulerTracker;
  /** Records applied so far: the end of the last `featuresAt` prefix; a later call must not ask for less. */
  readonly applied: number;
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
  ngram: NgramModel | null = null,
): PrefixFeaturizer {
  const tracker: SchedulerTracker = newSchedulerTracker();
  const stats = newContextStats();
  const kindCounts = new Float64Array(RECORD_KINDS.length);
  const staticColumns = staticVector(staticFeatures);
  const scratch = new Float64Array(MAX_WIDTH);
  let applied = 0;
  return {
    tracker,
    get applied() {
      return applied;
    },
    featuresAt(end, out, offset = 0) {
      if (end < applied) throw new RangeError(`prefix featurizer moved backwards: ${end} < ${applied}`);
      const stop = Math.min(end, records.length);
      for (; applied < stop; applied++) {
        const record = records[applied];
        applyRecord(tracker, record);
        observeRecord(stats, record, goroutineState(tracker, record.goroutine)?.status);
        kindCounts[KIND_INDEX.get(record.kind) ?? 0]++;
      }
      const view: PrefixView = { records, end: applied, procs, root, tracker, stats, kindCounts, staticColumns, ngram };
      let at = offset;
      for (let b = 0; b < BLOCKS.length; b++) {
        const width = BLOCK_WIDTHS[b];
        const buffer = scratch.subarray(0, width);
        buffer.fill(0);
        BLOCKS[b].write(view, buffer);
        for (let j = 0; j < width; j++) out[at + j] = buffer[j];
        at += width;
      }
    },
    feasibleAt(out, offset) {
      writeFeasibleEvents(tracker, procs, out, offset);
    },
  };
}

/** The features of one prefix (replays it from the start). */
export function prefixFeatures(prefix: Prefix, inputs: FeatureInputs = NO_FEATURE_INPUTS): Float64Array {
  const out = new Float64Array(FEATURE_COUNT);
  newPrefixFeaturizer(
    prefix.records,
    prefix.procs,
    inputs.staticOf(prefix.program),
    rootGoroutine(prefix.records, prefix.goroutines),
    inputs.ngram,
  ).featuresAt(prefix.end, out);
  return out;
}

/** Feature rows of many prefixes and their feasible-event flags. */
export interface FeatureRows {
  /** rows × FEATURE_COUNT. */
  readonly x: Float32Array;
  /** rows × 6 (EVENT_TYPES order): 1 where the event can happen next. */
  readonly feasible: Uint8Array;
}

/**
 * Features of many prefixes, row i for prefixes[i]. Prefixes of the same run (same `records`
 * array) are featurised in one forward walk, so the cost is linear in the records of each run
 * rather than in the sum of prefix lengths; with a memo, a run's walk also goes on from where
 * an earlier call left it when this call's prefixes of it start there or later.
 */
export function featurizePrefixes(
  prefixes: readonly Prefix[],
  inputs: FeatureInputs = NO_FEATURE_INPUTS,
  memo?: RunMemo<PrefixFeaturizer>,
): FeatureRows {
  const x = new Float32Array(prefixes.length * FEATURE_COUNT);
  const feasible = new Uint8Array(prefixes.length * K);
  forEachRun(
    prefixes,
    inputs,
    (indices, featurizer) => {
      for (const i of indices) {
        featurizer.featuresAt(prefixes[i].end, x, i * FEATURE_COUNT);
        featurizer.feasibleAt(feasible, i * K);
      }
    },
    memo,
  );
  return { x, feasible };
}

/**
 * Calls `visit` once per run the prefixes belong to (the records array they share), with the
 * indices of its prefixes sorted by end and a fresh featurizer of the run; one run's featurizer
 * is alive at a time.
 */
export function forEachRun(
  prefixes: readonly Prefix[],
  inputs: FeatureInputs,
  visit: (indices: readonly number[], featurizer: PrefixFeaturizer) => void,
  memo?: RunMemo<PrefixFeaturizer>,
): void {
  const byRun = new Map<readonly GoroutineRecord[], number[]>();
  prefixes.forEach((prefix, i) => {
    const list = byRun.get(prefix.records);
    if (list === undefined) byRun.set(prefix.records, [i]);
    else list.push(i);
  });
  for (const [records, indices] of byRun) {
    indices.sort((a, b) => prefixes[a].end - prefixes[b].end || a - b);
    const first = prefixes[indices[0]];
    const kept = memo?.take(records);
    const featurizer =
      kept !== undefined && kept.applied <= first.end
        ? kept
        : newPrefixFeaturizer(
            records,
            first.procs,
            inputs.staticOf(first.program),
            rootGoroutine(records, first.goroutines),
            inputs.ngram,
          );
    visit(indices, featurizer);
    memo?.keep(records, featurizer);
  }
}

/**
 * What a walk over a run left, kept across calls by the run's records array for the last
 * `capacity` runs: a predictor asked about a run's prefixes batch after batch (in increasing
 * order, as states come) or about a rollout's growing prefix step after step walks each
 * record once instead of from the start every time. A records array may grow (a rollout
 * appends) but what it holds must not change.
 */
export interface RunMemo<T> {
  /** The value kept for `records`, removed from the memo (keep it again when done). */
  take(records: readonly GoroutineRecord[]): T | undefined;
  keep(records: readonly GoroutineRecord[], value: T): void;
}

export function runMemo<T>(capacity: number): RunMemo<T> {
  const kept = new Map<readonly GoroutineRecord[], T>();
  return {
    take(records) {
      const value = kept.get(records);
      kept.delete(records);
      return value;
    },
    keep(records, value) {
      kept.set(records, value);
      if (kept.size > capacity) kept.delete(kept.keys().next().value!);
    },
  };
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
