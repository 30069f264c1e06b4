// Rollout metrics (docs/rollout.md), pure: survival, the share reaching k, k-step accuracy against
// the real continuations of the runs that share the prefix, and the rolled-out event-type
// distribution against the empirical one. Definitions in docs/rollout.md.

import { klDivergence, l1Distance } from "../metrics/index.js";
import { EVENT_TYPES, type EventType } from "../core/index.js";
import type { Rollout } from "./rollout.js";

/** Mean survival steps; NaN for no rollouts. Example: survivals [0, 3, 5] → 8/3. */
export function meanSurvival(rollouts: readonly Rollout[]): number {
  if (rollouts.length === 0) return NaN;
  return rollouts.reduce((s, r) => s + r.survival, 0) / rollouts.length;
}

/**
 * Mean probability the predictor put on event types the state machine rejected, over every
 * step of every rollout it was asked; NaN when it was never asked. Example: steps [0.1, 0.3] and [0.2] → 0.2.
 */
export function meanInfeasibleMass(rollouts: readonly Rollout[]): number {
  let sum = 0;
  let steps = 0;
  for (const r of rollouts) {
    for (const m of r.infeasibleMass) sum += m;
    steps += r.infeasibleMass.length;
  }
  return steps === 0 ? NaN : sum / steps;
}

/** Share of rollouts whose k steps were all valid. */
export function reachedKShare(rollouts: readonly Rollout[]): number {
  if (rollouts.length === 0) return NaN;
  return rollouts.filter((r) => r.end === "reached-k").length / rollouts.length;
}

const sameSequence = (a: readonly EventType[], b: readonly EventType[]): boolean =>
  a.length === b.length && a.every((e, i) => e === b[i]);

/**
 * k-step (sequence) accuracy: the share of rollouts whose valid event types equal some real
 * continuation exactly. A real continuation is the next min(k, remaining) event types of a run
 * sharing the prefix's state; a rollout that broke a rule never matches. Example: rollouts
 * [GoStart,GoBlock] and [GoStart,GoEnd], continuations {[GoStart,GoBlock]} → 0.5.
 */
export function kStepAccuracy(rollouts: readonly Rollout[], continuations: readonly (readonly EventType[])[]): number {
  if (rollouts.length === 0 || continuations.length === 0) return NaN;
  const hits = rollouts.filter(
    (r) => r.end !== "invalid" && r.end !== "no-mass" && continuations.some((c) => sameSequence(r.events, c)),
  );
  return hits.length / rollouts.length;
}

/**
 * Per-step accuracy: for each step j < k and rollout, 1 if step j was valid and its event type
 * is the j-th event type of some real continuation, else 0; averaged over rollouts × k.
 */
export function perStepAccuracy(
  rollouts: readonly Rollout[],
  continuations: readonly (readonly EventType[])[],
  k: number,
): number {
  if (rollouts.length === 0 || continuations.length === 0 || k <= 0) return NaN;
  let hits = 0;
  for (const r of rollouts) {
    for (let j = 0; j < Math.min(k, r.events.length); j++) if (continuations.some((c) => c[j] === r.events[j])) hits++;
  }
  return hits / (rollouts.length * k);
}

/** Normalised histogram of event types over sequences (zeros when empty). */
export function eventTypeDistribution(sequences: readonly (readonly EventType[])[]): number[] {
  const counts = EVENT_TYPES.map(() => 0);
  for (const s of sequences) for (const e of s) counts[EVENT_TYPES.indexOf(e)]++;
  const total = counts.reduce((a, b) => a + b, 0);
  return total === 0 ? counts : counts.map((c) => c / total);
}

export interface DistributionGap {
  /** Σ|rolled − empirical| / 6 (the L1 of docs/metrics.md). */
  readonly l1: number;
  /** KL(empirical ‖ rolled) in nats, rolled floored at 1e-12. */
  readonly kl: number;
}

/** The rolled-out event-type distribution against the real continuations'; NaN when either side is empty. */
export function distributionGap(rolled: readonly number[], empirical: readonly number[]): DistributionGap {
  const empty = (v: readonly number[]) => v.every((x) => x === 0);
  if (empty(rolled) || empty(empirical)) return { l1: NaN, kl: NaN };
  return { l1: l1Distance(empirical, rolled), kl: klDivergence(empirical, rolled) };
}

/** Survival counts per end kind, e.g. { "reached-k": 7, invalid: 3 }. */
export function endCounts(rollouts: readonly Rollout[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rollouts) out[r.end] = (out[r.end] ?? 0) + 1;
  return out;
}

/** Counts of broken rules among invalid rollouts. */
export function brokenRuleCounts(rollouts: readonly Rollout[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rollouts) if (r.brokenRule !== undefined) out[r.brokenRule] = (out[r.brokenRule] ?? 0) + 1;
  return out;
}
