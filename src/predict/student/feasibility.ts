// Which of the six events can happen next, from the replayed scheduler state alone (pure), and
// the cap a student puts on the events its prefix rules out. The rules are the rollout state
// machine's (docs/rollout.md); a run's own next event breaks one only as a GoCreate while no
// user goroutine runs (the runtime or the testing driver creates it). A pooled state's p̂ does
// put mass there, since its other runs are elsewhere, so infeasible events are capped, not
// removed (docs/experiments/training.md, "Events the prefix rules out").

import { EVENT_TYPES, type SchedulerTracker } from "../../core/index.js";

const K = EVENT_TYPES.length;
const START = EVENT_TYPES.indexOf("GoStart");
const BLOCK = EVENT_TYPES.indexOf("GoBlock");
const UNBLOCK = EVENT_TYPES.indexOf("GoUnblock");
const SCHED = EVENT_TYPES.indexOf("GoSched");
const END = EVENT_TYPES.indexOf("GoEnd");
const CREATE = EVENT_TYPES.indexOf("GoCreate");

/**
 * Writes 1 (possible) or 0 for each event, EVENT_TYPES order, into out[at .. at+6):
 * GoStart needs a runnable goroutine and a free P (procs ≤ 0: unknown, not checked);
 * GoBlock, GoSched and GoCreate a running one; GoEnd a running one or one in a syscall;
 * GoUnblock a waiting one.
 */
export function writeFeasibleEvents(tracker: SchedulerTracker, procs: number, out: Uint8Array, at: number): void {
  const c = tracker.statusCounts;
  out[at + CREATE] = c.running > 0 ? 1 : 0;
  out[at + START] = c.runnable > 0 && (procs <= 0 || c.running < procs) ? 1 : 0;
  out[at + BLOCK] = c.running > 0 ? 1 : 0;
  out[at + SCHED] = c.running > 0 ? 1 : 0;
  out[at + UNBLOCK] = c.waiting > 0 ? 1 : 0;
  out[at + END] = c.running > 0 || c.syscall > 0 ? 1 : 0;
}

/**
 * Caps the total probability of infeasible events in q[at .. at+6) at `cap`, rescaling the
 * feasible ones to keep the sum 1 (uniform over them when they had no mass). With cap < 1/5
 * the most probable event is always feasible when any is: a feasible one gets at least
 * (1 − cap)/5 > cap. A vector with no feasible event is left as it is.
 */
export function capInfeasible(q: Float64Array, at: number, feasible: Uint8Array, maskAt: number, cap: number): void {
  let outside = 0;
  let count = 0;
  for (let c = 0; c < K; c++) {
    if (feasible[maskAt + c] === 0) outside += q[at + c];
    else count++;
  }
  if (count === 0 || outside <= cap) return;
  const inside = 1 - outside;
  for (let c = 0; c < K; c++) {
    if (feasible[maskAt + c] === 0) q[at + c] *= cap / outside;
    else q[at + c] = inside > 1e-12 ? (q[at + c] * (1 - cap)) / inside : (1 - cap) / count;
  }
}

/**
 * Makes the most probable event of q[at .. at+6) a feasible one with the least change: when an
 * infeasible event beats every feasible one, the infeasible events are scaled down together
 * until the best of them is `margin` × the best feasible one, and the vector is renormalised
 * (which keeps that order). A vector whose top event is feasible, or with no feasible event,
 * is left as it is. Unlike capInfeasible, the infeasible mass is kept wherever it does not
 * decide the top event, so a pooled state's p̂ keeps the mass its other runs put there.
 */
export function topFeasible(q: Float64Array, at: number, feasible: Uint8Array, maskAt: number, margin = 0.9): void {
  let bestFeasible = -1;
  let bestInfeasible = -1;
  for (let c = 0; c < K; c++) {
    if (feasible[maskAt + c] === 1) bestFeasible = Math.max(bestFeasible, q[at + c]);
    else bestInfeasible = Math.max(bestInfeasible, q[at + c]);
  }
  if (bestFeasible < 0 || bestInfeasible < bestFeasible) return; // a tie is broken too: greedy takes the first
  if (bestFeasible === 0) {
    // No mass on any feasible event: give each of them the top infeasible event's mass / margin.
    for (let c = 0; c < K; c++) if (feasible[maskAt + c] === 1) q[at + c] = bestInfeasible / margin;
  } else {
    const scale = (margin * bestFeasible) / bestInfeasible;
    for (let c = 0; c < K; c++) if (feasible[maskAt + c] === 0) q[at + c] *= scale;
  }
  let total = 0;
  for (let c = 0; c < K; c++) total += q[at + c];
  for (let c = 0; c < K; c++) q[at + c] /= total;
}
