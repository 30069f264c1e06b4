// Pure helpers for probability vectors over EVENT_TYPES: validation, normalisation,
// softmax. Invariant: every function returning a vector returns six finite
// non-negative numbers summing to 1.

import { EVENT_TYPES } from "../core/index.js";
import type { EventProbabilities } from "./types.js";

/** Tolerance for a vector's sum to count as 1. */
export const SUM_TOLERANCE = 1e-6;

/** The uniform distribution over the six events. */
export function uniformProbabilities(): number[] {
  return EVENT_TYPES.map(() => 1 / EVENT_TYPES.length);
}

/**
 * Why `vector` is not a probability vector over the six events, or null when it is.
 * Example: probabilityVectorProblem([1, 0, 0, 0, 0, 0]) === null.
 */
export function probabilityVectorProblem(vector: readonly unknown[]): string | null {
  if (vector.length !== EVENT_TYPES.length) return `has ${vector.length} entries, expected ${EVENT_TYPES.length}`;
  let sum = 0;
  for (const [i, p] of vector.entries()) {
    if (typeof p !== "number" || !Number.isFinite(p)) return `entry ${EVENT_TYPES[i]} is not a finite number`;
    if (p < 0) return `entry ${EVENT_TYPES[i]} is negative (${p})`;
    sum += p;
  }
  if (Math.abs(sum - 1) > SUM_TOLERANCE) return `sums to ${sum}, not 1`;
  return null;
}

/**
 * Scales non-negative weights to sum to 1, first raising each to at least `floor`.
 * All-zero weights (and floor 0) give the uniform distribution.
 * Example: normalizeWeights([2, 2, 0, 0, 0, 0]) → [0.5, 0.5, 0, 0, 0, 0].
 */
export function normalizeWeights(weights: readonly number[], floor = 0): number[] {
  const raised = weights.map((w) => Math.max(Number.isFinite(w) && w > 0 ? w : 0, floor));
  const total = raised.reduce((a, b) => a + b, 0);
  if (total <= 0) return uniformProbabilities();
  return raised.map((w) => w / total);
}

/**
 * Softmax of scores (log-probabilities or logits), numerically stable.
 * Example: softmax([0, 0]) → [0.5, 0.5]; -Infinity entries get probability 0.
 */
export function softmax(scores: readonly number[]): number[] {
  const max = Math.max(...scores);
  if (!Number.isFinite(max)) return scores.map(() => 1 / scores.length);
  const exps = scores.map((s) => Math.exp(s - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/** Log-softmax of one row of logits: log p_i = x_i − logsumexp(x). */
export function logSoftmax(logits: ArrayLike<number>): number[] {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let total = 0;
  for (let i = 0; i < logits.length; i++) total += Math.exp(logits[i] - max);
  const lse = max + Math.log(total);
  return Array.from(logits, (x) => x - lse);
}

/** Index of the largest probability (the first on ties). */
export function argmax(vector: EventProbabilities): number {
  let best = 0;
  for (let i = 1; i < vector.length; i++) if (vector[i] > vector[best]) best = i;
  return best;
}
