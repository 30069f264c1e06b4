// The locks of one run, folded from the lock operations that `collect --budget`'s
// lock-recording builds log (docs/leaks.md, "Lock recording"): which goroutine holds which
// mutex and where it took it, which lock each goroutine is waiting for, every acquisition
// made while another lock was held (the run's lock-order edges) and every read lock
// re-taken by a goroutine that already holds it. Lock ids are addresses: they name a mutex
// within one run only. Pure; memory follows the locks held, the edges are bounded per run.

import type { LockOp } from "../core/index.js";

export type LockMode = "w" | "r";

/** A lock a goroutine took: which, how, and where. */
export interface LockHold {
  readonly lock: string;
  readonly mode: LockMode;
  /** Top user frame of the acquisition, "function file:line". */
  readonly site: string | null;
  /** The acquisition's stack (docs/events.md, "Stacks"; no library call part). */
  readonly stack: string | null;
}

/** An acquisition of `taken` made while `held` was held: an edge held → taken of the lock-order graph. */
export interface LockEdge {
  /** Canonical id of the goroutine. */
  readonly goroutine: string;
  readonly held: LockHold;
  readonly taken: LockHold;
  /** The other locks it held at that moment (a common one guards an inversion). */
  readonly guards: readonly string[];
}

/** A read lock taken again by a goroutine that already held it for reading. */
export interface RecursiveRead {
  readonly goroutine: string;
  readonly first: LockHold;
  readonly again: LockHold;
}

/** What a run's lock operations say; empty for a run that logged none (not a hunt's build, or no mutex). */
export interface RunLocks {
  /** Operations seen: 0 when the run was not built with lock recording or took no lock. */
  readonly ops: number;
  /** Locks held by each goroutine when the trace stopped. */
  readonly holds: ReadonlyMap<string, readonly LockHold[]>;
  /** The lock each goroutine asked for and had not got when the trace stopped. */
  readonly wanting: ReadonlyMap<string, LockHold>;
  readonly edges: readonly LockEdge[];
  readonly recursiveReads: readonly RecursiveRead[];
  /** Per lock, the first write acquisition asked for in the run (a writer that can queue). */
  readonly writers: ReadonlyMap<string, { readonly goroutine: string; readonly site: string | null }>;
}

export const NO_LOCKS: RunLocks = {
  ops: 0,
  holds: new Map(),
  wanting: new Map(),
  edges: [],
  recursiveReads: [],
  writers: new Map(),
};

/** Edges and recursive reads kept per run: enough for every inversion, bounded for lock-heavy loops. */
const MAX_EDGES = 4096;

interface Held extends LockHold {
  count: number;
}

/** The hold as reported: without the fold's running count, which goes on changing after an edge is recorded. */
function reported({ lock, mode, site, stack }: LockHold): LockHold {
  return { lock, mode, site, stack };
}

interface RawEdge {
  readonly gid: number;
  readonly held: LockHold;
  readonly taken: LockHold;
  readonly guards: readonly string[];
}

export interface LockFold {
  add(op: LockOp): void;
  /** The run's locks, goroutines named by `nameOf` (runtime id → canonical id; undefined: not a user goroutine). */
  finish(nameOf: (gid: number) => string | undefined): RunLocks;
}

/** A fold over one run's lock operations, in order. */
export function lockFold(): LockFold {
  let ops = 0;
  const held = new Map<number, Map<string, Held>>();
  const wanting = new Map<number, LockHold>();
  const edges = new Map<string, RawEdge>();
  const recursive = new Map<string, { gid: number; first: LockHold; again: LockHold }>();
  const writers = new Map<string, { gid: number; site: string | null }>();
  return {
    add(op) {
      ops++;
      const mine = held.get(op.goroutine) ?? new Map<string, Held>();
      held.set(op.goroutine, mine);
      const hold: LockHold = { lock: op.lock, mode: op.mode, site: op.site, stack: op.stack };
      switch (op.phase) {
        case "want": {
          wanting.set(op.goroutine, hold);
          if (op.mode === "w" && !writers.has(op.lock)) writers.set(op.lock, { gid: op.goroutine, site: op.site });
          const again = mine.get(op.lock);
          if (again !== undefined && again.mode === "r" && op.mode === "r") {
            const key = `${op.goroutine}|${op.lock}|${again.site}|${op.site}`;
            if (recursive.size < MAX_EDGES && !recursive.has(key))
              recursive.set(key, { gid: op.goroutine, first: reported(again), again: hold });
          }
          for (const [lock, h] of mine) {
            if (lock === op.lock) continue;
            const key = `${op.goroutine}|${lock}|${op.lock}|${h.site}|${op.site}`;
            if (edges.size >= MAX_EDGES || edges.has(key)) continue;
            edges.set(key, {
              gid: op.goroutine,
              held: reported(h),
              taken: hold,
              guards: [...mine.keys()].filter((l) => l !== lock && l !== op.lock),
            });
          }
          return;
        }
        case "got": {
          wanting.delete(op.goroutine);
          const h = mine.get(op.lock);
          if (h === undefined) mine.set(op.lock, { ...hold, count: 1 });
          else h.count++;
          return;
        }
        case "drop": {
          // An RUnlock may release a read lock another goroutine took (legal for RWMutex).
          const owner = mine.has(op.lock) ? mine : [...held.values()].find((m) => m.has(op.lock));
          const h = owner?.get(op.lock);
          if (owner === undefined || h === undefined) return;
          if (--h.count <= 0) owner.delete(op.lock);
          return;
        }
      }
    },
    finish(nameOf) {
      if (ops === 0) return NO_LOCKS;
      const holds = new Map<string, LockHold[]>();
      for (const [gid, mine] of held) {
        const name = nameOf(gid);
        if (name === undefined || mine.size === 0) continue;
        holds.set(name, [...mine.values()].map(reported));
      }
      const named = <T extends { gid: number }>(items: Iterable<T>): (Omit<T, "gid"> & { goroutine: string })[] => {
        const out: (Omit<T, "gid"> & { goroutine: string })[] = [];
        for (const { gid, ...rest } of items) {
          const goroutine = nameOf(gid);
          if (goroutine !== undefined) out.push({ ...rest, goroutine });
        }
        return out;
      };
      const want = new Map<string, LockHold>();
      for (const [gid, hold] of wanting) {
        const name = nameOf(gid);
        if (name !== undefined) want.set(name, hold);
      }
      const firstWriters = new Map<string, { goroutine: string; site: string | null }>();
      for (const [lock, w] of writers)
        firstWriters.set(lock, { goroutine: nameOf(w.gid) ?? "(non-user)", site: w.site });
      return {
        ops,
        holds,
        wanting: want,
        edges: named(edges.values()),
        recursiveReads: named(recursive.values()),
        writers: firstWriters,
      };
    },
  };
}

/** The goroutines holding `lock` when the run's trace stopped, with their holds of it. */
export function holdersOf(locks: RunLocks, lock: string): { readonly goroutine: string; readonly hold: LockHold }[] {
  const out: { goroutine: string; hold: LockHold }[] = [];
  for (const [goroutine, holds] of locks.holds) {
    const hold = holds.find((h) => h.lock === lock);
    if (hold !== undefined) out.push({ goroutine, hold });
  }
  return out;
}
