// A run's end states (RunGoroutineStates, what runStateFold concludes from every record and
// lock operation) as compact text, for runs ingested with --store summary (run_end_states,
// docs/schema.md). Goroutines are written as the run's gids, which the run's goroutines
// name; every text (stacks, sites, wait keys, lock addresses) is written once per run in a
// table of its own and referred to by index. Pure: decode(encode(s)) equals s, maps and
// arrays in the same order, objects with the same keys in the same order.

import { SchedlabError } from "../errors.js";
import type { GoroutineInfo } from "../core/index.js";
import { NO_LOCKS, type LockHold, type LockMode, type RunLocks } from "./locks.js";
import {
  END_STATES,
  NON_USER_WAKER,
  TIMER_WAKER,
  type EndState,
  type FinalBlock,
  type FinalWait,
  type LeakReason,
  type OutlivingReason,
  type RunGoroutineStates,
  type WakeTally,
} from "./types.js";
import type { PreciseWait } from "./waits.js";

/** The layout written by encodeEndStates (run_end_states.format); decodeEndStates reads only this one. */
export const END_STATE_FORMAT = 1;

/** A goroutine as written: its gid, or one of these for the wakers and lock writers no user goroutine is. */
const TIMER = -1;
const NON_USER = -2;

/** A text's index in the table, or -1 for null. */
type TextRef = number;

/** [lock, mode, site, stack] */
type EncodedHold = [TextRef, TextRef, TextRef, TextRef];

/** [reason, wait, stack, site, depth, runEvents, blockedNs, earlierWakes, longestEarlierBlockNs] */
type EncodedBlock = [TextRef, TextRef, TextRef, TextRef, number, number, number, number, number];

/** [wait key, count, timer, longestNs, wakers] */
type EncodedWake = [TextRef, number, number, number, number[]];

interface EncodedLocks {
  readonly ops: number;
  /** [gid, holds] */
  readonly holds: [number, EncodedHold[]][];
  /** [gid, hold] */
  readonly wanting: [number, EncodedHold][];
  /** [gid, held, taken, guards] */
  readonly edges: [number, EncodedHold, EncodedHold, TextRef[]][];
  /** [gid, first, again] */
  readonly recursiveReads: [number, EncodedHold, EncodedHold][];
  /** [lock, gid, site] */
  readonly writers: [TextRef, number, TextRef][];
}

interface EncodedEndStates {
  readonly texts: string[];
  readonly cut: boolean;
  readonly allBlocked: boolean;
  readonly tracedNs: number;
  /** gid, END_STATES index, gid, index, …: every seen goroutine in the fold's order. */
  readonly ends: number[];
  /** [gid, block] */
  readonly finalBlocks: [number, EncodedBlock][];
  /** [gid, wait] (its reason network or syscall); absent when the run had none (and in summaries written before they were kept). */
  readonly finalWaits?: [number, EncodedBlock][];
  /** [gid, wakes] */
  readonly wakes: [number, EncodedWake[]][];
  /** Absent when the run logged no lock operation. */
  readonly locks?: EncodedLocks;
}

/** The summary of a run does not fit its goroutines or the codec: it was written by another schedlab, or damaged. */
export class EndStateFormatError extends SchedlabError {
  constructor(message: string) {
    super(
      message,
      "Ingest the run again from its trace: `schedlab ingest --force --db FILE` (with --store summary or events).",
    );
  }
}

/** `states` as text; `goroutines` are the run's, which name every goroutine the states mention. */
export function encodeEndStates(states: RunGoroutineStates, goroutines: readonly GoroutineInfo[]): string {
  const gids = new Map(goroutines.map((g) => [g.canonicalId, g.goroutine]));
  const gidOf = (name: string): number => {
    if (name === TIMER_WAKER) return TIMER;
    if (name === NON_USER_WAKER) return NON_USER;
    const gid = gids.get(name);
    if (gid === undefined)
      throw new EndStateFormatError(`the end states name a goroutine the run does not have: ${name}`);
    return gid;
  };
  const texts: string[] = [];
  const indexes = new Map<string, number>();
  const text = (value: string | null): TextRef => {
    if (value === null) return -1;
    let i = indexes.get(value);
    if (i === undefined) {
      i = texts.push(value) - 1;
      indexes.set(value, i);
    }
    return i;
  };
  const hold = (h: LockHold): EncodedHold => [text(h.lock), text(h.mode), text(h.site), text(h.stack)];
  const ends: number[] = [];
  for (const [name, state] of states.ends) ends.push(gidOf(name), END_STATES.indexOf(state));
  const encoded: EncodedEndStates = {
    texts,
    cut: states.cut,
    allBlocked: states.allBlocked,
    tracedNs: states.tracedNs,
    ends,
    finalBlocks: [...states.finalBlocks].map(([name, b]) => [gidOf(name), encodeBlock(b, text)]),
    ...(states.finalWaits.size === 0
      ? {}
      : {
          finalWaits: [...states.finalWaits].map(([name, b]): [number, EncodedBlock] => [
            gidOf(name),
            encodeBlock(b, text),
          ]),
        }),
    wakes: [...states.wakes].map(([name, byKey]) => [
      gidOf(name),
      [...byKey].map(([key, t]) => [text(key), t.count, t.timer, t.longestNs, t.wakers.map(gidOf)]),
    ]),
  };
  const locks = states.locks;
  const withLocks: EncodedEndStates =
    locks.ops === 0
      ? encoded
      : {
          ...encoded,
          locks: {
            ops: locks.ops,
            holds: [...locks.holds].map(([name, hs]) => [gidOf(name), hs.map(hold)]),
            wanting: [...locks.wanting].map(([name, h]) => [gidOf(name), hold(h)]),
            edges: locks.edges.map((e) => [gidOf(e.goroutine), hold(e.held), hold(e.taken), e.guards.map(text)]),
            recursiveReads: locks.recursiveReads.map((r) => [gidOf(r.goroutine), hold(r.first), hold(r.again)]),
            writers: [...locks.writers].map(([lock, w]) => [text(lock), gidOf(w.goroutine), text(w.site)]),
          },
        };
  return JSON.stringify(withLocks);
}

/** A final block or wait as written, its texts in `text`'s table. */
function encodeBlock(b: FinalBlock | FinalWait, text: (value: string | null) => TextRef): EncodedBlock {
  return [
    text(b.reason),
    text(b.wait),
    text(b.stack),
    text(b.blockingSite),
    b.depth,
    b.runEvents,
    b.blockedNs,
    b.earlierWakes,
    b.longestEarlierBlockNs,
  ];
}

/** The end states `text` (from encodeEndStates) describes, its gids named by the run's `goroutines`. */
export function decodeEndStates(text: string, goroutines: readonly GoroutineInfo[]): RunGoroutineStates {
  const encoded = JSON.parse(text) as EncodedEndStates;
  const names = new Map(goroutines.map((g) => [g.goroutine, g.canonicalId]));
  const nameOf = (gid: number): string => {
    if (gid === TIMER) return TIMER_WAKER;
    if (gid === NON_USER) return NON_USER_WAKER;
    const name = names.get(gid);
    if (name === undefined)
      throw new EndStateFormatError(
        `the stored end states name goroutine ${gid}, which the run's goroutines do not list`,
      );
    return name;
  };
  const textOf = (ref: TextRef): string | null => {
    if (ref === -1) return null;
    const value = encoded.texts[ref];
    if (value === undefined)
      throw new EndStateFormatError(`the stored end states refer to text ${ref} of ${encoded.texts.length}`);
    return value;
  };
  const requiredText = (ref: TextRef): string => textOf(ref) ?? "";
  const hold = ([lock, mode, site, stack]: EncodedHold): LockHold => ({
    lock: requiredText(lock),
    mode: requiredText(mode) as LockMode,
    site: textOf(site),
    stack: textOf(stack),
  });
  const ends = new Map<string, EndState>();
  for (let i = 0; i < encoded.ends.length; i += 2) ends.set(nameOf(encoded.ends[i]), END_STATES[encoded.ends[i + 1]]);
  const block = ([gid, [reason, wait, stack, site, depth, runEvents, blockedNs, earlierWakes, longestEarlierBlockNs]]: [
    number,
    EncodedBlock,
  ]) => {
    const canonicalId = nameOf(gid);
    return {
      canonicalId,
      reason: requiredText(reason),
      wait: requiredText(wait) as PreciseWait,
      stack: textOf(stack),
      blockingSite: textOf(site),
      depth,
      runEvents,
      blockedNs,
      earlierWakes,
      longestEarlierBlockNs,
    };
  };
  const finalBlocks = new Map<string, FinalBlock>(
    encoded.finalBlocks.map((entry) => {
      const b = block(entry);
      return [b.canonicalId, { ...b, reason: b.reason as LeakReason }];
    }),
  );
  const finalWaits = new Map<string, FinalWait>(
    (encoded.finalWaits ?? []).map((entry) => {
      const b = block(entry);
      return [b.canonicalId, { ...b, reason: b.reason as OutlivingReason }];
    }),
  );
  const wakes = new Map<string, Map<string, WakeTally>>(
    encoded.wakes.map(([gid, byKey]) => [
      nameOf(gid),
      new Map(
        byKey.map(([key, count, timer, longestNs, wakers]) => [
          requiredText(key),
          { count, timer, longestNs, wakers: wakers.map(nameOf) },
        ]),
      ),
    ]),
  );
  return {
    seen: new Set(ends.keys()),
    ends,
    finalBlocks,
    finalWaits,
    wakes,
    cut: encoded.cut,
    allBlocked: encoded.allBlocked,
    tracedNs: encoded.tracedNs,
    locks: decodeLocks(encoded.locks, nameOf, hold, textOf),
  };
}

function decodeLocks(
  locks: EncodedLocks | undefined,
  nameOf: (gid: number) => string,
  hold: (h: EncodedHold) => LockHold,
  textOf: (ref: TextRef) => string | null,
): RunLocks {
  if (locks === undefined) return NO_LOCKS;
  return {
    ops: locks.ops,
    holds: new Map(locks.holds.map(([gid, hs]) => [nameOf(gid), hs.map(hold)])),
    wanting: new Map(locks.wanting.map(([gid, h]) => [nameOf(gid), hold(h)])),
    edges: locks.edges.map(([gid, held, taken, guards]) => ({
      held: hold(held),
      taken: hold(taken),
      guards: guards.map((g) => textOf(g) ?? ""),
      goroutine: nameOf(gid),
    })),
    recursiveReads: locks.recursiveReads.map(([gid, first, again]) => ({
      first: hold(first),
      again: hold(again),
      goroutine: nameOf(gid),
    })),
    writers: new Map(
      locks.writers.map(([lock, gid, site]) => [textOf(lock) ?? "", { goroutine: nameOf(gid), site: textOf(site) }]),
    ),
  };
}
