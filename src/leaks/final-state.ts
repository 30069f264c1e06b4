// What one run says about each user goroutine at its end: which goroutines sit in a
// leak-reason block they were never woken from, which blocks were woken, and whether
// the run hung with every user goroutine blocked. Pure: a fold over the run's records,
// fed one at a time, whose state is per goroutine (never per record).

import type { GoroutineRecord } from "../trace/types.js";
import { EVENT_TYPES } from "../trace/types.js";
import { isLeakReason, type FinalBlock, type LeakReason, type LeakRun, type RunGoroutineStates } from "./types.js";

type Blocked =
  | { readonly kind: "leak-reason"; readonly reason: LeakReason; readonly site: string | null; readonly key: string; readonly depth: number; readonly timeNs: number }
  /** A block that ends by itself or that we cannot name: sleep, network, GC waits, an initial Waiting status. */
  | { readonly kind: "other"; readonly countsAsHung: boolean }
  /** A GC stack-scan suspension (GoBlock "preempted"): not a block at all. */
  | { readonly kind: "gc" };

interface Track {
  blocked: Blocked | null;
  ended: boolean;
  /** "reason|site" → [times woken, longest woken block in ns, times woken by no goroutine (a timer)]. */
  readonly woken: Map<string, [number, number, number]>;
}

/** The key under which blocks at the same place are compared across runs and wakes. */
export function blockKey(reason: string, site: string | null): string {
  return `${reason}|${site ?? ""}`;
}

/** The canonical ids of a run's goroutines, by runtime id. */
function canonicalIds(run: LeakRun): Map<number, string> {
  return new Map(run.goroutines.map((g) => [g.goroutine, g.canonicalId]));
}

function applyRecord(track: Track, record: GoroutineRecord, depth: number): void {
  switch (record.kind) {
    case "GoBlock":
      if (record.reason === "preempted") track.blocked = { kind: "gc" };
      else if (isLeakReason(record.reason)) track.blocked = { kind: "leak-reason", reason: record.reason, site: record.site, key: blockKey(record.reason, record.site), depth, timeNs: record.timeNs };
      else track.blocked = { kind: "other", countsAsHung: false };
      return;
    case "GoUnblock": {
      const blocked = track.blocked;
      if (blocked?.kind === "leak-reason") {
        const woken = track.woken.get(blocked.key);
        // A channel or lock wake names the goroutine that acted; timers fire from the scheduler, with none.
        if (woken === undefined) track.woken.set(blocked.key, [1, record.timeNs - blocked.timeNs, record.actor === null ? 1 : 0]);
        else {
          woken[0]++;
          woken[1] = Math.max(woken[1], record.timeNs - blocked.timeNs);
          if (record.actor === null) woken[2]++;
        }
      }
      track.blocked = null;
      return;
    }
    case "GoEnd":
      track.ended = true;
      track.blocked = null;
      return;
    case "Initial":
      // A goroutine already waiting when tracing began: blocked, reason unknown.
      track.blocked = /wait/i.test(record.reason) ? { kind: "other", countsAsHung: true } : null;
      return;
    case "GoCreate":
    case "GoStart":
    case "GoSched":
    case "SyscallEnter":
    case "SyscallExit":
    case "SyscallUnblock":
      track.blocked = null;
      return;
  }
}

const EVENT_KINDS: ReadonlySet<string> = new Set(EVENT_TYPES);

/** A run's records folded one at a time (in seq order) into the end states of its goroutines. */
export interface RunStateFold {
  add(record: GoroutineRecord): void;
  /** The states after every record was added; call once. */
  finish(): RunGoroutineStates;
}

/**
 * The end state of every user goroutine of `run`, folded from its records. `timerMargin`
 * (see DetectOptions) decides which blocks in a run that hung are too recent to call: a
 * goroutine that a timer had woken before from the same block (a GoUnblock with no
 * goroutine as actor), whose final block began less than `timerMargin` times the longest
 * of its earlier blocks there before the run's last user record, is a timer-driven loop
 * caught mid-wait, not a leak. In a run that ended normally every final block counts: the
 * goroutine outlived the program. State is kept per goroutine, so a run of any length
 * folds in memory proportional to its goroutines.
 */
export function runStateFold(run: LeakRun, options: { timerMargin: number }): RunStateFold {
  const tracks = new Map<number, Track>();
  let depth = 0;
  let lastNs = 0;
  return {
    add(record) {
      let track = tracks.get(record.goroutine);
      if (track === undefined) {
        track = { blocked: null, ended: false, woken: new Map() };
        tracks.set(record.goroutine, track);
      }
      // A GoCreate's subject is the new goroutine; the depth counts the event before it happens.
      applyRecord(track, record, depth);
      if (EVENT_KINDS.has(record.kind)) depth++;
      if (record.timeNs > lastNs) lastNs = record.timeNs;
    },
    finish() {
      return endStates(run, tracks, depth, lastNs, options.timerMargin);
    },
  };
}

/** runStateFold over records already at hand. */
export function runGoroutineStates(run: LeakRun, records: Iterable<GoroutineRecord>, options: { timerMargin: number }): RunGoroutineStates {
  const fold = runStateFold(run, options);
  for (const record of records) fold.add(record);
  return fold.finish();
}

function endStates(run: LeakRun, tracks: ReadonlyMap<number, Track>, depth: number, lastNs: number, timerMargin: number): RunGoroutineStates {
  const ids = canonicalIds(run);
  const hung = run.outcome === "timeout" || run.outcome === "killed" || run.runtimeDeadlock;
  const seen = new Set<string>();
  const finalBlocks = new Map<string, FinalBlock>();
  const wokenAt = new Map<string, Set<string>>();
  const ambiguous = new Set<string>();
  let alive = 0;
  let aliveBlocked = 0;
  for (const [gid, track] of tracks) {
    const canonicalId = ids.get(gid);
    if (canonicalId === undefined) continue;
    seen.add(canonicalId);
    if (track.woken.size > 0) wokenAt.set(canonicalId, new Set(track.woken.keys()));
    if (track.ended) continue;
    alive++;
    const blocked = track.blocked;
    if (blocked === null || blocked.kind === "gc") continue;
    if (blocked.kind === "other") {
      if (blocked.countsAsHung) aliveBlocked++;
      continue;
    }
    const [earlierWakes, longestEarlierBlockNs, timerWakes] = track.woken.get(blocked.key) ?? [0, 0, 0];
    const blockedNs = lastNs - blocked.timeNs;
    if (hung && timerWakes > 0 && blockedNs < timerMargin * longestEarlierBlockNs) {
      ambiguous.add(canonicalId);
      continue;
    }
    aliveBlocked++;
    finalBlocks.set(canonicalId, {
      canonicalId,
      reason: blocked.reason,
      blockingSite: blocked.site,
      depth: blocked.depth,
      runEvents: depth,
      blockedNs,
      earlierWakes,
      longestEarlierBlockNs,
    });
  }
  return { seen, finalBlocks, wokenAt, ambiguous, allBlocked: hung && alive > 0 && aliveBlocked === alive };
}
