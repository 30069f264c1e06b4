// The one predictor interface (docs/predictors.md): a batch of states in, a probability vector
// over the six event types out, in EVENT_TYPES order. Invariant: every vector has six
// finite non-negative entries summing to 1 (within 1e-6).

import type { State } from "../dataset/index.js";

/** Probabilities over EVENT_TYPES, in that order. */
export type EventProbabilities = readonly number[];

/** Optional symbolic reasoning a predictor gives beside its probabilities. */
export interface ReasoningTags {
  /** The block reason it expects behind the next event, if any (e.g. "chan receive"). */
  readonly blockReason?: string;
  /** The wake-up cause it expects, if any (e.g. "chan send", "timer"). */
  readonly wakeCause?: string;
}

export interface Prediction {
  readonly probabilities: EventProbabilities;
  readonly tags?: ReasoningTags;
}

export interface Predictor {
  /** The spec the user gave, e.g. "ngram:3", "openai:qwen-7b", "student:adapters/kl". */
  readonly id: string;
  /** Hash of everything that changes the output (weights, options); with id and state id it keys the cache. */
  readonly configHash: string;
  predict(states: readonly State[]): Promise<Prediction[]>;
}

/**
 * One predictor's answers to a list of states, aligned with it (same order, same length):
 * what eval scores and fidelity compares.
 */
export interface PredictorOutput {
  /** The predictor spec, e.g. "ngram:3". */
  readonly name: string;
  readonly configHash: string;
  readonly predictions: readonly Prediction[];
}
