// The ceiling and baselines that make an accuracy meaningful (DESIGN §5), and the summary
// of a set of states. Pure: states in, numbers out. An empty input gives NaN, never a guess.

import { EVENT_TYPES } from "../trace/types.js";
import type { EventType } from "../trace/types.js";
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
 * The ceiling: accuracy, over every sample, of always predicting the mode of the sample's
 * state. No predictor that sees only the state can beat it. Example: states {GoStart:3,
 * GoEnd:1} and {GoBlock:2} → (3 + 2) / 6 = 0.8333.
 */
export function modeAccuracy(states: readonly HasCounts[]): number {
  let hits = 0;
  let total = 0;
  for (const s of states) {
    const mode = modeEvent(s.counts);
    if (mode !== undefined) hits += s.counts[mode];
    total += totalCount(s.counts);
  }
  return total === 0 ? NaN : hits / total;
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
  readonly ceiling: number;
  readonly majority: number;
  readonly classFrequencies: Record<EventType, number>;
  readonly meanEntropy: number;
  readonly multiOutcomeShare: number;
}

/** Summary of `test` states, with the majority class learned on `train` states. */
export function summarizeStates(train: readonly HasCounts[], test: readonly HasCounts[]): DistributionSummary {
  return {
    ceiling: modeAccuracy(test),
    majority: majorityAccuracy(train, test),
    classFrequencies: classFrequencies(test),
    meanEntropy: meanEntropy(test),
    multiOutcomeShare: multiOutcomeShare(test),
  };
}
