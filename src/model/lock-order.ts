// Lock-order prediction: deadlocks the recorded lock operations show are possible even
// where no run hung (docs/leaks.md, "Potential deadlocks"). Within each run, an edge
// A → B says a goroutine asked for B while holding A; a cycle of such edges made by
// different goroutines is a lock-order inversion, unless one lock common to all of them was
// held around every edge (a guard). A goroutine that takes a read lock it already holds
// deadlocks once a writer queues between the two: that needs a writer of the same lock in
// the run. Findings are keyed by their sites across runs. Pure.

import { fingerprintOf, fingerprintProgram, ownerRoot } from "./bugs.js";
import { goroutineLabel, siteLine } from "./explain.js";
import type { LockEdge } from "./locks.js";
import type { AnalysedRun, ProgramRuns } from "./types.js";

/** One acquisition order of a potential deadlock: `goroutine` held a lock taken at heldAt when it asked for another at takenAt. */
export interface OrderStep {
  readonly goroutine: string;
  readonly heldAt: string | null;
  readonly heldStack: string | null;
  readonly takenAt: string | null;
  readonly takenStack: string | null;
  /** "w" or "r" for the held and the asked-for lock. */
  readonly modes: string;
}

export interface PotentialDeadlock {
  readonly fingerprint: string;
  readonly program: string;
  readonly owner: string;
  /** lock-order: an inversion (a cycle of acquisition orders); recursive-read: a read lock taken again while a writer can queue. */
  readonly pattern: "lock-order" | "recursive-read";
  readonly steps: readonly OrderStep[];
  /** For recursive-read: where the writer asks for the lock. */
  readonly writerAt: string | null;
  /** Runs in which it was seen; none of them hung on it. */
  readonly runIds: readonly number[];
  readonly why: string;
}

/** Cycles kept per run: inversions come in few shapes; a lock-heavy program need not list them all. */
const MAX_CYCLES = 64;
const MAX_LENGTH = 4;

/** Cycles of `edges` (as lists of edges, each starting at its smallest lock), made by distinct goroutines, unguarded. */
function inversions(edges: readonly LockEdge[]): LockEdge[][] {
  const from = new Map<string, LockEdge[]>();
  for (const e of edges) from.set(e.held.lock, [...(from.get(e.held.lock) ?? []), e]);
  const found: LockEdge[][] = [];
  const path: LockEdge[] = [];
  const start = { lock: "" };
  const visit = (lock: string): void => {
    if (found.length >= MAX_CYCLES) return;
    for (const e of from.get(lock) ?? []) {
      if (e.taken.lock < start.lock) continue; // each cycle once, from its smallest lock
      if (path.some((p) => p.goroutine === e.goroutine)) continue;
      if (e.taken.lock === start.lock) {
        const cycle = [...path, e];
        if (cycle.length >= 2 && !guarded(cycle) && !readOnly(cycle)) found.push(cycle);
        continue;
      }
      if (path.length + 1 >= MAX_LENGTH || path.some((p) => p.held.lock === e.taken.lock)) continue;
      path.push(e);
      visit(e.taken.lock);
      path.pop();
    }
  };
  for (const lock of [...from.keys()].sort()) {
    start.lock = lock;
    visit(lock);
  }
  return found;
}

/** One lock held around every order of the cycle serialises them: no deadlock. */
function guarded(cycle: readonly LockEdge[]): boolean {
  const [first, ...rest] = cycle;
  return first.guards.some((g) => rest.every((e) => e.guards.includes(g)));
}

/** Read locks alone never wait for one another. */
function readOnly(cycle: readonly LockEdge[]): boolean {
  return cycle.every((e) => e.held.mode === "r" && e.taken.mode === "r");
}

function stepOf(e: LockEdge): OrderStep {
  return {
    goroutine: e.goroutine,
    heldAt: e.held.site,
    heldStack: e.held.stack,
    takenAt: e.taken.site,
    takenStack: e.taken.stack,
    modes: `${e.held.mode}${e.taken.mode}`,
  };
}

/** Whether every goroutine of `goroutines` ended run `r` blocked: the inversion hung there and is reported as a deadlock. */
function hungOn(r: AnalysedRun, goroutines: readonly string[]): boolean {
  return goroutines.every((g) => r.states.finalBlocks.has(g));
}

/**
 * The potential deadlocks of a program over its runs (crashed runs included: the orders
 * were taken before the crash). One whose goroutines ended blocked in some run is left
 * out: it happened, and the rule reports it as a deadlock or leak, with its cycle.
 */
export function predictDeadlocks(program: ProgramRuns): PotentialDeadlock[] {
  const found = new Map<
    string,
    {
      steps: OrderStep[];
      pattern: PotentialDeadlock["pattern"];
      writerAt: string | null;
      runIds: number[];
      hungSomewhere: boolean;
    }
  >();
  const note = (
    key: string,
    r: AnalysedRun,
    steps: OrderStep[],
    pattern: PotentialDeadlock["pattern"],
    writerAt: string | null,
  ): void => {
    const hung = hungOn(
      r,
      steps.map((s) => s.goroutine),
    );
    const seen = found.get(key);
    if (seen === undefined) found.set(key, { steps, pattern, writerAt, runIds: [r.run.runId], hungSomewhere: hung });
    else {
      if (!seen.runIds.includes(r.run.runId)) seen.runIds.push(r.run.runId);
      seen.hungSomewhere ||= hung;
    }
  };
  for (const r of program.runs) {
    const locks = r.states.locks;
    if (locks.ops === 0) continue;
    for (const cycle of inversions(locks.edges)) {
      const steps = cycle.map(stepOf);
      note(
        `order|${steps
          .map((s) => `${s.heldAt}>${s.takenAt}`)
          .sort()
          .join("|")}`,
        r,
        steps,
        "lock-order",
        null,
      );
    }
    for (const rec of locks.recursiveReads) {
      const writer = locks.writers.get(rec.first.lock);
      if (writer === undefined || writer.goroutine === rec.goroutine) continue;
      const step: OrderStep = {
        goroutine: rec.goroutine,
        heldAt: rec.first.site,
        heldStack: rec.first.stack,
        takenAt: rec.again.site,
        takenStack: rec.again.stack,
        modes: "rr",
      };
      note(`read|${rec.first.site}>${rec.again.site}`, r, [step], "recursive-read", writer.site);
    }
  }
  const out: PotentialDeadlock[] = [];
  for (const [key, f] of found) {
    if (f.hungSomewhere) continue;
    out.push({
      fingerprint: fingerprintOf([`${fingerprintProgram(program.program)}|${key.replace(/:\d+/g, "")}`]),
      program: program.program,
      owner: ownerRoot(f.steps[0].goroutine),
      pattern: f.pattern,
      steps: f.steps,
      writerAt: f.writerAt,
      runIds: f.runIds.sort((a, b) => a - b),
      why: f.pattern === "lock-order" ? orderWhy(f.steps) : readWhy(f.steps[0], f.writerAt),
    });
  }
  return out.sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : 1));
}

function orderWhy(steps: readonly OrderStep[]): string {
  const orders = steps.map(
    (s) =>
      `${goroutineLabel(s.goroutine)} holds the lock taken at ${siteLine(s.heldAt)} and asks for the one at ${siteLine(s.takenAt)}`,
  );
  return `${orders.join("; ")}: the locks are taken in opposite orders with no common lock held around both, so a schedule that interleaves them deadlocks.`;
}

function readWhy(step: OrderStep, writerAt: string | null): string {
  return (
    `${goroutineLabel(step.goroutine)} holds a read lock taken at ${siteLine(step.heldAt)} and takes it ` +
    `again at ${siteLine(step.takenAt)}; a writer (at ${siteLine(writerAt)}) that queues between the two ` +
    `blocks both, since RWMutex readers wait for a waiting writer.`
  );
}
