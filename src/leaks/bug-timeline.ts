// The timeline of a bug, as data for a picture: in the run its explanation names, the lanes of
// the goroutines involved (the bug's and those they wait for) with their running, runnable and
// blocked segments, the last block of each, the ends of the goroutines waited for and the
// lock operations, on a time axis whose long quiet stretches are collapsed into gaps. The fold
// and the compression are pure; bugTimeline streams one run's records of those goroutines only.

import type { GoroutineRecord, LockOp } from "../core/index.js";
import { goroutineLabel, initialState, isLeakReason, runWasCut, type RunEnd } from "../model/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import {
  forEachGoroutineRecord,
  lastRunRecord,
  loadRunExcerpt,
  loadRunGoroutines,
  SummaryOnlyRunError,
} from "../trace/index.js";
import { waitForGraph, type PicturedBug, type PicturedFinding } from "./wait-for-graph.js";

/** A goroutine's state over a segment: sleeping, network and other non-leak waits are "waiting". */
export type LaneState = "running" | "runnable" | "blocked" | "waiting" | "syscall";

export interface LaneSegment {
  readonly state: LaneState;
  readonly startNs: number;
  readonly endNs: number;
  /** The block reason of a blocked or waiting segment; "" otherwise. */
  readonly reason: string;
}

/** The block a goroutine was still in when the trace stopped. */
export interface LastBlock {
  readonly timeNs: number;
  readonly reason: string;
  /** "function file:line" of the block, as the finding's blockingSite; null when the trace gave none. */
  readonly site: string | null;
}

export interface TimelineLane {
  /** Canonical goroutine id. */
  readonly goroutine: string;
  /** Its runtime id in the run pictured. */
  readonly gid: number;
  readonly label: string;
  /** One of the bug's goroutines (else one they wait for). */
  readonly member: boolean;
  readonly segments: readonly LaneSegment[];
  readonly lastBlock: LastBlock | null;
  /** When it ended (GoEnd); null when it had not. */
  readonly endedNs: number | null;
}

/** A moment the picture marks on a lane. */
export type TimelineMark =
  | { readonly kind: "last-block"; readonly goroutine: string; readonly timeNs: number; readonly block: LastBlock }
  | { readonly kind: "go-end"; readonly goroutine: string; readonly timeNs: number }
  | {
      readonly kind: "lock";
      readonly goroutine: string;
      readonly timeNs: number;
      readonly phase: LockOp["phase"];
      readonly mode: LockOp["mode"];
      readonly site: string | null;
    };

/** A stretch of the time axis: drawn to scale, or collapsed into a gap that says its duration. */
export interface TimeWindow {
  readonly startNs: number;
  readonly endNs: number;
  readonly gap: boolean;
}

export interface BugTimeline {
  readonly title: string;
  readonly program: string;
  /** The run pictured: the one the bug's explanation names (else its first run); null when it has none. */
  readonly runId: number | null;
  readonly startNs: number;
  readonly endNs: number;
  readonly lanes: readonly TimelineLane[];
  readonly marks: readonly TimelineMark[];
  /** Cover [startNs, endNs] in order. */
  readonly windows: readonly TimeWindow[];
  /** What the picture cannot show (goroutines absent from the run, a run without stored events); null when nothing. */
  readonly note: string | null;
}

/** Lock operations kept per lane: the last ones, those that led to the block. */
const LOCK_MARKS_PER_LANE = 16;

/** The lane a goroutine's records are folded into, one record at a time. */
interface LaneFold {
  state: LaneState | null;
  since: number;
  reason: string;
  segments: LaneSegment[];
  last: LastBlock | null;
  endedNs: number | null;
  firstNs: number | null;
  locks: TimelineMark[];
}

function stateAfter(record: GoroutineRecord): LaneState | null {
  switch (record.kind) {
    case "GoCreate":
    case "GoUnblock":
    case "GoSched":
    case "SyscallUnblock":
      return "runnable";
    case "GoStart":
    case "SyscallExit":
      return "running";
    case "GoBlock":
      // A GC stack-scan suspension (reason "preempted") is not a block: the goroutine stays runnable.
      if (record.reason === "preempted") return "runnable";
      return isLeakReason(record.reason) ? "blocked" : "waiting";
    case "SyscallEnter":
      return "syscall";
    case "GoEnd":
      return null;
    case "Initial":
      return initialState(record.reason);
  }
}

/**
 * Folds the records of some goroutines of one run (in seq order, each naming its goroutine by
 * `gid`) and their lock operations into lanes and marks. `ids` maps runtime ids to canonical
 * ids, `members` the bug's goroutines among them.
 */
export function timelineFold(ids: ReadonlyMap<number, string>, members: ReadonlySet<string>) {
  const lanes = new Map<number, LaneFold>();
  const lane = (gid: number): LaneFold => {
    let l = lanes.get(gid);
    if (l === undefined) {
      l = { state: null, since: 0, reason: "", segments: [], last: null, endedNs: null, firstNs: null, locks: [] };
      lanes.set(gid, l);
    }
    return l;
  };
  // A segment in the same state as the one before it (a GC preemption, a wake-up before the
  // goroutine ran) extends that one: a lane holds state changes, not records.
  const close = (l: LaneFold, at: number): void => {
    if (l.state === null || at <= l.since) return;
    const last = l.segments[l.segments.length - 1];
    if (last !== undefined && last.state === l.state && last.reason === l.reason && last.endNs === l.since)
      l.segments[l.segments.length - 1] = { ...last, endNs: at };
    else l.segments.push({ state: l.state, startNs: l.since, endNs: at, reason: l.reason });
  };
  return {
    add(record: GoroutineRecord): void {
      if (!ids.has(record.goroutine)) return;
      const l = lane(record.goroutine);
      l.firstNs ??= record.timeNs;
      close(l, record.timeNs);
      l.state = stateAfter(record);
      l.since = record.timeNs;
      l.reason = l.state === "blocked" || l.state === "waiting" ? record.reason : "";
      l.last =
        record.kind === "GoBlock" && l.state !== "runnable"
          ? { timeNs: record.timeNs, reason: record.reason, site: record.site }
          : null;
      if (record.kind === "GoEnd") l.endedNs = record.timeNs;
    },
    addLockOp(op: LockOp): void {
      const goroutine = ids.get(op.goroutine);
      if (goroutine === undefined) return;
      const l = lane(op.goroutine);
      l.locks.push({ kind: "lock", goroutine, timeNs: op.timeNs, phase: op.phase, mode: op.mode, site: op.site });
      if (l.locks.length > LOCK_MARKS_PER_LANE) l.locks.shift();
    },
    /** Lanes in the order of `ids`, open segments closed at `endNs`, and every mark in time order. */
    finish(endNs: number): { lanes: TimelineLane[]; marks: TimelineMark[]; startNs: number } {
      const out: TimelineLane[] = [];
      const marks: TimelineMark[] = [];
      let startNs = endNs;
      for (const [gid, goroutine] of ids) {
        const l = lanes.get(gid);
        if (l === undefined) continue;
        close(l, endNs);
        startNs = Math.min(startNs, l.firstNs ?? endNs);
        out.push({
          goroutine,
          gid,
          label: goroutineLabel(goroutine),
          member: members.has(goroutine),
          segments: l.segments,
          lastBlock: l.last,
          endedNs: l.endedNs,
        });
        if (l.last !== null) marks.push({ kind: "last-block", goroutine, timeNs: l.last.timeNs, block: l.last });
        if (l.endedNs !== null) marks.push({ kind: "go-end", goroutine, timeNs: l.endedNs });
        marks.push(...l.locks);
      }
      marks.sort((a, b) => a.timeNs - b.timeNs);
      return { lanes: out, marks, startNs };
    },
  };
}

/**
 * The time axis of [startNs, endNs] kept around `moments` and collapsed elsewhere: moments
 * closer than `joinFraction` of the span form one cluster, kept with a margin (a quarter of
 * its width, at least `padFraction` of the span); what lies between two kept windows is a gap.
 * The ends of the span are always kept, so the lanes' first and last states show.
 *
 * @example compressTime([10, 12, 990], 0, 1000) → kept [0, 16], gap [16, 986], kept [986, 1000]
 */
export function compressTime(
  moments: readonly number[],
  startNs: number,
  endNs: number,
  joinFraction = 0.2,
  padFraction = 0.004,
): TimeWindow[] {
  const span = endNs - startNs;
  if (!(span > 0)) return [{ startNs, endNs: Math.max(startNs, endNs), gap: false }];
  const sorted = [startNs, ...moments.filter((t) => t >= startNs && t <= endNs), endNs].sort((a, b) => a - b);
  const kept: { startNs: number; endNs: number }[] = [];
  let first = sorted[0];
  let last = sorted[0];
  const keep = (): void => {
    const pad = Math.max((last - first) / 4, span * padFraction);
    const window = { startNs: Math.max(startNs, first - pad), endNs: Math.min(endNs, last + pad) };
    const previous = kept[kept.length - 1];
    if (previous !== undefined && window.startNs - previous.endNs < span * joinFraction) previous.endNs = window.endNs;
    else kept.push(window);
  };
  for (const t of sorted.slice(1)) {
    if (t - last >= span * joinFraction) {
      keep();
      first = t;
    }
    last = t;
  }
  keep();
  const windows: TimeWindow[] = [];
  for (const w of kept) {
    const previous = windows[windows.length - 1];
    if (previous !== undefined && w.startNs > previous.endNs)
      windows.push({ startNs: previous.endNs, endNs: w.startNs, gap: true });
    windows.push({ ...w, gap: false });
  }
  return windows;
}

/**
 * The timeline of `bug` in the run its explanation names (else its first run): the lanes of
 * the goroutines of its wait-for graph (src/leaks/wait-for-graph.ts) that the run has, from
 * their records alone (one filtered range scan), marks, and the compressed axis.
 */
export function bugTimeline(
  db: SchedlabDatabase,
  bug: PicturedBug,
  analysis: { readonly findings: readonly PicturedFinding[] },
): BugTimeline {
  const title = `${bug.program}${bug.test === null ? "" : ` ${bug.test}`}`;
  const runId = bug.explained?.explanation.runId ?? bug.runIds[0] ?? null;
  const empty = (note: string): BugTimeline => ({
    title,
    program: bug.program,
    runId,
    startNs: 0,
    endNs: 0,
    lanes: [],
    marks: [],
    windows: [],
    note,
  });
  if (runId === null) return empty("No run left these goroutines blocked: there is no run to draw.");
  const involved = waitForGraph(bug, analysis)
    .nodes.filter((n) => n.kind === "goroutine")
    .map((n) => n.id);
  const gidOf = new Map(loadRunGoroutines(db, runId).map((g) => [g.canonicalId, g.goroutine]));
  const ids = new Map(involved.flatMap((id) => (gidOf.has(id) ? [[gidOf.get(id) as number, id] as const] : [])));
  const absent = involved.filter((id) => !gidOf.has(id));
  const fold = timelineFold(ids, new Set(bug.goroutines));
  let endNs: number;
  try {
    forEachGoroutineRecord(db, runId, [...ids.keys()], fold.add, fold.addLockOp);
    endNs = runEndNs(db, runId);
  } catch (error) {
    if (error instanceof SummaryOnlyRunError)
      return empty(`Run ${runId} was ingested with --store summary: its events were not stored.`);
    throw error;
  }
  const { lanes, marks, startNs } = fold.finish(endNs);
  const moments = [...marks.map((m) => m.timeNs), ...lanes.map((l) => l.segments[0]?.startNs ?? startNs)];
  return {
    title,
    program: bug.program,
    runId,
    startNs,
    endNs,
    lanes,
    marks,
    windows: compressTime(moments, startNs, endNs),
    note:
      [
        ...(absent.length === 0 ? [] : [`Not in run ${runId}: ${absent.map(goroutineLabel).join(", ")}.`]),
        ...excerptNote(db, runId),
      ].join(" ") || null,
  };
}

/**
 * What a timeline of a run stored as an excerpt cannot show (docs/schema.md, "Excerpts"):
 * only its windows' records are stored; between them a lane keeps the state the next window's
 * Initial records give it, so a block made in a gap shows without its GoBlock (and its mark).
 */
function excerptNote(db: SchedlabDatabase, runId: number): string[] {
  const excerpt = loadRunExcerpt(db, runId);
  if (excerpt === null) return [];
  return [
    `Run ${runId} is stored as an excerpt (${excerpt.windows.length} windows along its ${excerpt.records} records): ` +
      "between windows each lane keeps the state the next window starts it in, and a block made there has no mark.",
  ];
}

/**
 * When the run's trace stopped: its last record, or for a run the deadline cut, its wall
 * time (no user record marks a cut), as the goroutine fold takes it.
 */
function runEndNs(db: SchedlabDatabase, runId: number): number {
  const last = lastRunRecord(db, runId)?.timeNs ?? 0;
  const run = db.prepare("SELECT outcome, wall_ms FROM runs WHERE id = ?").get(runId) as
    { outcome: RunEnd; wall_ms: number | null } | undefined;
  return run !== undefined && runWasCut(run.outcome) && run.wall_ms !== null ? Math.max(last, run.wall_ms * 1e6) : last;
}
