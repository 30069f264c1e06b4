// The ceiling and baselines that make an accuracy meaningful (docs/dataset.md), and the summary
// of a set of states. Pure: states in, numbers out. An empty input gives NaN, never a guess.

import { EVENT_TYPES, type EventType } from "../core/index.js";
import { ceilingAccuracy, leaveOneRunOutCeiling, seenOnceShare, type SeenOnce } from "./ceiling.js";
import { addCounts, distinctOutcomes, emptyCounts, entropyBits, modeEvent, totalCount } from "./distribution.js";
import type { EventCounts } from "./types.js";

/** Anything that carries a distribution's counts (a State, a stored row, …). */
export interface HasCounts {
  readonly counts: EventCounts;
}

/** Counts summed over states. */
export function pooledCounts(states: readonly HasCounts[]): EventCounts {
  return states.reduce<EventCounts>((sum, s) => addCounts(sum, s.counts), emptyCounts());
}

/**
 * The in-sample ceiling of states (see ceilingAccuracy): the accuracy, over every sample, of
 * always predicting the mode of the sample's state. Example: states {GoStart:3, GoEnd:1} and
 * {GoBlock:2} → (3 + 2) / 6 = 0.8333.
 */
export function stateCeiling(states: readonly HasCounts[]): number {
  return ceilingAccuracy(states.map((s) => EVENT_TYPES.map((e) => s.counts[e])));
}

/** The most frequent next event over all samples; ties go to the earliest in EVENT_TYPES. */
export function majorityClass(states: readonly HasCounts[]): EventType | undefined {
  return modeEvent(pooledCounts(states));
}

/**
 * The majority-class baseline: the class most frequent in the training states' samples,
 * scored on every test sample. Example: train {GoStart:5, GoBlock:2}, test {GoStart:1,
 * GoBlock:3} → GoStart, accuracy 1/4.
 */
export function majorityAccuracy(train: readonly HasCounts[], test: readonly HasCounts[]): number {
  const cls = majorityClass(train);
  const counts = pooledCounts(test);
  const total = totalCount(counts);
  if (cls === undefined || total === 0) return NaN;
  return counts[cls] / total;
}

/** Relative frequency of each next event over all samples (sums to 1; all zero when empty). */
export function classFrequencies(states: readonly HasCounts[]): Record<EventType, number> {
  const counts = pooledCounts(states);
  const total = totalCount(counts);
  const freq = emptyCounts();
  for (const event of EVENT_TYPES) freq[event] = total === 0 ? 0 : counts[event] / total;
  return freq;
}

/** Mean over states (unweighted) of the entropy of p̂ in bits. */
export function meanEntropy(states: readonly HasCounts[]): number {
  if (states.length === 0) return NaN;
  return states.reduce((sum, s) => sum + entropyBits(s.counts), 0) / states.length;
}

/** Share of states with more than one distinct observed next event. */
export function multiOutcomeShare(states: readonly HasCounts[]): number {
  if (states.length === 0) return NaN;
  return states.filter((s) => distinctOutcomes(s.counts) > 1).length / states.length;
}

/** The summary `schedlab dist` prints; names match its --json output. */
export interface DistributionSummary {
  /** In-sample ceiling (always predicting each state's mode of p̂). */
  readonly ceiling: number;
  /** Leave-one-run-out ceiling (see leaveOneRunOutCeiling); NaN when the samples were not given. */
  readonly ceilingLoo: number;
  /** States seen exactly once, and the samples in them, as shares. */
  readonly seenOnce: SeenOnce;
  readonly majority: number;
  readonly classFrequencies: Record<EventType, number>;
  readonly meanEntropy: number;
  readonly multiOutcomeShare: number;
}

/** A test sample as the summary needs it: its state id, run and next event. */
export interface SummarySample {
  readonly stateId: string;
  readonly runId: number;
  readonly next: EventType;
}

/**
 * Summary of `test` states, with the majority class learned on `train` states (also the
 * leave-one-run-out ceiling's fallback). `samples` (the test states' samples) give the LOO
 * ceiling; without them it is NaN.
 */
export function summarizeStates(
  train: readonly HasCounts[],
  test: readonly (HasCounts & { readonly id?: string })[],
  samples?: readonly SummarySample[],
): DistributionSummary {
  const index = new Map(test.map((s, i) => [s.id, i] as const));
  const fallback = EVENT_TYPES.indexOf(majorityClass(train) ?? "GoStart");
  const loo =
    samples === undefined
      ? NaN
      : leaveOneRunOutCeiling(
          samples.flatMap((s) => {
            const state = index.get(s.stateId);
            return state === undefined ? [] : [{ state, run: s.runId, observed: EVENT_TYPES.indexOf(s.next) }];
          }),
          EVENT_TYPES.length,
          fallback,
        );
  return {
    ceiling: stateCeiling(test),
    ceilingLoo: loo,
    seenOnce: seenOnceShare(test.map((s) => EVENT_TYPES.map((e) => s.counts[e]))),
    majority: majorityAccuracy(train, test),
    classFrequencies: classFrequencies(test),
    meanEntropy: meanEntropy(test),
    multiOutcomeShare: multiOutcomeShare(test),
  };
}
