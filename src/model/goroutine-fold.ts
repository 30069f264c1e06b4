// The goroutine state machine over one run's records: where each user goroutine stands
// when the trace stops, which leak-reason waits it was woken from, how often and by whom.
// Pure: a fold fed one record at a time (in seq order) whose state is per goroutine, so a
// run of any length folds in memory proportional to its goroutines.

import { EVENT_TYPES, type GoroutineRecord, type LockOp } from "../core/index.js";
import { lockFold } from "./locks.js";
import { parseStack, preciseWait } from "./waits.js";
import {
  isLeakReason,
  isOutlivingReason,
  NON_USER_WAKER,
  runFinished,
  runWasCut,
  TIMER_WAKER,
  type EndState,
  type FinalBlock,
  type FinalWait,
  type LeakReason,
  type OutlivingReason,
  type LeakRun,
  type RunGoroutineStates,
  type WakeTally,
} from "./types.js";

/** Wakers remembered per wait: enough to name the partners, bounded for loops woken by many. */
const MAX_WAKERS = 8;

/** A wait the fold follows: a leak-reason block, or a network wait or syscall (which the outside world ends). */
interface LeakWait {
  readonly reason: LeakReason | OutlivingReason;
  readonly site: string | null;
  readonly key: string;
  readonly depth: number;
  readonly timeNs: number;
  readonly stack: string | null;
}

interface MutableTally {
  count: number;
  timer: number;
  longestNs: number;
  /** Runtime ids of the wakers (null: a timer), translated to canonical ids at the end. */
  readonly wakers: (number | null)[];
}

interface Track {
  state: EndState;
  /** The wait it is in: a leak-reason wait when state is "blocked", a network wait ("waiting") or a syscall ("syscall"). */
  wait: LeakWait | null;
  /** Its "waiting" state comes from the Initial record (a wait of unknown reason when tracing began), which counts as hung. */
  initialWait: boolean;
  readonly woken: Map<string, MutableTally>;
}

/** The key under which blocks at the same place are compared across runs and wakes. */
export function blockKey(reason: string, site: string | null): string {
  return `${reason}|${site ?? ""}`;
}

/** A network wait or syscall that starts at `record`. */
function outsideWait(reason: OutlivingReason, record: GoroutineRecord, depth: number): LeakWait {
  return {
    reason,
    site: record.site,
    key: blockKey(reason, record.site),
    depth,
    timeNs: record.timeNs,
    stack: record.stack ?? null,
  };
}

/**
 * The status an Initial record gives (its reason names the state when tracing began): a
 * wait of unknown reason, or running, runnable or in a syscall.
 */
export function initialState(reason: string): "waiting" | "syscall" | "running" | "runnable" {
  if (/wait/i.test(reason)) return "waiting";
  return /syscall/i.test(reason) ? "syscall" : /running/i.test(reason) ? "running" : "runnable";
}

function applyRecord(track: Track, record: GoroutineRecord, depth: number): void {
  // Only an Initial record leaves a wait of unknown reason; any later record says more.
  track.initialWait = false;
  switch (record.kind) {
    case "GoCreate":
      track.state = "not-started";
      track.wait = null;
      return;
    case "GoBlock":
      track.wait = null;
      // A GC stack-scan suspension (reason "preempted") is not a block: the goroutine stays runnable.
      if (record.reason === "preempted") track.state = "runnable";
      else if (isLeakReason(record.reason)) {
        track.state = "blocked";
        track.wait = {
          reason: record.reason,
          site: record.site,
          key: blockKey(record.reason, record.site),
          depth,
          timeNs: record.timeNs,
          stack: record.stack ?? null,
        };
      } else {
        track.state = record.reason === "sleep" ? "sleeping" : "waiting";
        if (record.reason === "network") track.wait = outsideWait("network", record, depth);
      }
      return;
    case "GoUnblock": {
      const wait = track.wait;
      if (wait !== null && isLeakReason(wait.reason)) {
        const tally = track.woken.get(wait.key) ?? { count: 0, timer: 0, longestNs: 0, wakers: [] };
        tally.count++;
        // A channel or lock wake names the goroutine that acted; timers fire from the scheduler, with none.
        if (record.actor === null) tally.timer++;
        tally.longestNs = Math.max(tally.longestNs, record.timeNs - wait.timeNs);
        if (tally.wakers.length < MAX_WAKERS && !tally.wakers.includes(record.actor)) tally.wakers.push(record.actor);
        track.woken.set(wait.key, tally);
      }
      track.wait = null;
      track.state = "runnable";
      return;
    }
    case "GoStart":
    case "SyscallExit":
      track.wait = null;
      track.state = "running";
      return;
    case "GoSched":
    case "SyscallUnblock":
      track.wait = null;
      track.state = "runnable";
      return;
    case "SyscallEnter":
      track.state = "syscall";
      track.wait = outsideWait("syscall", record, depth);
      return;
    case "GoEnd":
      track.wait = null;
      track.state = "ended";
      return;
    case "Initial":
      track.wait = null;
      track.state = initialState(record.reason);
      track.initialWait = track.state === "waiting";
      return;
  }
}

const EVENT_KINDS: ReadonlySet<string> = new Set(EVENT_TYPES);

/** A run's records folded one at a time (in seq order) into the end states of its goroutines. */
export interface RunStateFold {
  add(record: GoroutineRecord): void;
  /** A lock operation, in order with the records (before the record whose seq is op.seq). */
  addLockOp(op: LockOp): void;
  /**
   * The states after every record was added; call once. `goroutines` names the run's
   * goroutines when they were not known at the start (a trace decoded on the fly).
   */
  finish(goroutines?: LeakRun["goroutines"]): RunGoroutineStates;
}

/**
 * The end state of every user goroutine of `run`, folded from its records. Goroutine ids
 * in the records are runtime ids; `run.goroutines` names them canonically (records of
 * goroutines it does not list are ignored: they are not the user's).
 */
export function runStateFold(run: LeakRun): RunStateFold {
  const tracks = new Map<number, Track>();
  let depth = 0;
  let firstNs = Number.POSITIVE_INFINITY;
  let lastNs = 0;
  const locks = lockFold();
  return {
    add(record) {
      let track = tracks.get(record.goroutine);
      if (track === undefined) {
        track = { state: "runnable", wait: null, initialWait: false, woken: new Map() };
        tracks.set(record.goroutine, track);
      }
      // A GoCreate's subject is the new goroutine; the depth counts the event before it happens.
      applyRecord(track, record, depth);
      if (EVENT_KINDS.has(record.kind)) depth++;
      if (record.timeNs > lastNs) lastNs = record.timeNs;
      if (record.timeNs < firstNs) firstNs = record.timeNs;
    },
    addLockOp(op) {
      locks.add(op);
    },
    finish(goroutines) {
      const start = Number.isFinite(firstNs) ? firstNs : 0;
      // A cut run ended at the cut, which no user record marks: its wall time does.
      const endNs = runWasCut(run.outcome) && run.wallMs != null ? Math.max(lastNs, run.wallMs * 1e6) : lastNs;
      const named = goroutines === undefined ? run : { ...run, goroutines };
      const ids = new Map(named.goroutines.map((g) => [g.goroutine, g.canonicalId]));
      return { ...endStates(named, tracks, depth, endNs - start, endNs), locks: locks.finish((gid) => ids.get(gid)) };
    },
  };
}

/** runStateFold over records already at hand. */
export function runGoroutineStates(run: LeakRun, records: Iterable<GoroutineRecord>): RunGoroutineStates {
  const fold = runStateFold(run);
  for (const record of records) fold.add(record);
  return fold.finish();
}

function endStates(
  run: LeakRun,
  tracks: ReadonlyMap<number, Track>,
  depth: number,
  tracedNs: number,
  endNs: number,
): Omit<RunGoroutineStates, "locks"> {
  const ids = new Map(run.goroutines.map((g) => [g.goroutine, g.canonicalId]));
  const wakerName = (gid: number | null): string => (gid === null ? TIMER_WAKER : (ids.get(gid) ?? NON_USER_WAKER));
  const cut = runWasCut(run.outcome);
  const hung = cut || run.runtimeDeadlock;
  const seen = new Set<string>();
  const ends = new Map<string, EndState>();
  const finalBlocks = new Map<string, FinalBlock>();
  const finalWaits = new Map<string, FinalWait>();
  const wakes = new Map<string, Map<string, WakeTally>>();
  let alive = 0;
  let aliveBlocked = 0;
  // The harness stops a main program's trace inside main, as it returns or exits: in a run
  // that finished, the main goroutine has ended whatever its last record says.
  const finished = runFinished(run);
  for (const [gid, track] of tracks) {
    const canonicalId = ids.get(gid);
    if (canonicalId === undefined) continue;
    if (finished && canonicalId === "main.main" && track.state !== "blocked") track.state = "ended";
    seen.add(canonicalId);
    ends.set(canonicalId, track.state);
    if (track.woken.size > 0) {
      wakes.set(
        canonicalId,
        new Map(
          [...track.woken].map(([key, t]) => [
            key,
            { count: t.count, timer: t.timer, longestNs: t.longestNs, wakers: [...new Set(t.wakers.map(wakerName))] },
          ]),
        ),
      );
    }
    if (track.state === "ended") continue;
    alive++;
    if (track.state === "waiting" && track.initialWait) aliveBlocked++;
    const wait = track.wait;
    if (wait === null) continue;
    const earlier = track.woken.get(wait.key);
    const common = {
      wait: preciseWait(wait.reason, parseStack(wait.stack).api),
      stack: wait.stack,
      blockingSite: wait.site,
      depth: wait.depth,
      runEvents: depth,
      blockedNs: endNs - wait.timeNs,
      earlierWakes: earlier?.count ?? 0,
      longestEarlierBlockNs: earlier?.longestNs ?? 0,
    };
    // A network wait or syscall is live (the outside world ends it): kept apart, never blocked.
    if (isOutlivingReason(wait.reason)) {
      if (track.state === "waiting" || track.state === "syscall")
        finalWaits.set(canonicalId, { canonicalId, reason: wait.reason, ...common });
      continue;
    }
    if (track.state !== "blocked") continue;
    aliveBlocked++;
    finalBlocks.set(canonicalId, { canonicalId, reason: wait.reason, ...common });
  }
  return {
    seen,
    ends,
    finalBlocks,
    finalWaits,
    wakes,
    cut,
    allBlocked: hung && alive > 0 && aliveBlocked === alive,
    tracedNs,
  };
}
