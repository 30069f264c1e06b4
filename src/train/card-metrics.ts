// Holdout metrics for an adapter's card, computed from per-state predictions and counts:
// every sample of a state is scored against the state's prediction (docs/metrics.md definitions:
// accuracy against each run's observed next event, majority, ceiling, macro-F1, 15-bin
// top-label ECE, per-event recall).

import { EVENT_TYPES, type EventType } from "../core/index.js";

export interface ScoredState {
  /** Counts of observed next events, EVENT_TYPES order. */
  readonly counts: readonly number[];
  /** Predicted distribution, EVENT_TYPES order. */
  readonly probabilities: readonly number[];
}

export interface CardMetrics {
  readonly states: number;
  readonly samples: number;
  readonly accuracy: number;
  /** Accuracy of always predicting the training set's most frequent event. */
  readonly majority: number;
  readonly majorityEvent: EventType;
  /** Accuracy of predicting each state's own mode; no predictor can do better. */
  readonly ceiling: number;
  readonly macroF1: number;
  readonly ece: number;
  /** NLL per sample (natural log). */
  readonly nll: number;
  readonly recall: Readonly<Record<EventType, number | null>>;
  readonly precision: Readonly<Record<EventType, number | null>>;
}

function argmax(v: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
  return best;
}

/**
 * Scores `states`. `majorityEvent` comes from the training data, not the holdout.
 * Recall/precision are null for an event that never occurred / was never predicted.
 */
export function cardMetrics(states: readonly ScoredState[], majorityEvent: EventType, bins = 15): CardMetrics {
  const k = EVENT_TYPES.length;
  const majorityIndex = EVENT_TYPES.indexOf(majorityEvent);
  const confusion = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const binCount = new Array<number>(bins).fill(0);
  const binCorrect = new Array<number>(bins).fill(0);
  const binConfidence = new Array<number>(bins).fill(0);
  let samples = 0;
  let hits = 0;
  let majorityHits = 0;
  let ceilingHits = 0;
  let nll = 0;
  for (const state of states) {
    const n = state.counts.reduce((a, b) => a + b, 0);
    if (n === 0) continue;
    const top = argmax(state.probabilities);
    const confidence = state.probabilities[top];
    samples += n;
    hits += state.counts[top];
    majorityHits += state.counts[majorityIndex];
    ceilingHits += Math.max(...state.counts);
    for (let c = 0; c < k; c++) {
      confusion[c][top] += state.counts[c];
      if (state.counts[c] > 0) nll -= state.counts[c] * Math.log(Math.max(state.probabilities[c], 1e-12));
    }
    const bin = Math.min(bins - 1, Math.floor(confidence * bins));
    binCount[bin] += n;
    binCorrect[bin] += state.counts[top];
    binConfidence[bin] += n * confidence;
  }
  let ece = 0;
  for (let b = 0; b < bins; b++) {
    if (binCount[b] > 0) ece += Math.abs(binCorrect[b] - binConfidence[b]);
  }
  const recall = {} as Record<EventType, number | null>;
  const precision = {} as Record<EventType, number | null>;
  const f1s: number[] = [];
  EVENT_TYPES.forEach((event, c) => {
    const tp = confusion[c][c];
    const support = confusion[c].reduce((a, b) => a + b, 0);
    const predicted = confusion.reduce((a, row) => a + row[c], 0);
    recall[event] = support === 0 ? null : tp / support;
    precision[event] = predicted === 0 ? null : tp / predicted;
    if (support === 0 && predicted === 0) return;
    const p = predicted === 0 ? 0 : tp / predicted;
    const r = support === 0 ? 0 : tp / support;
    f1s.push(tp === 0 ? 0 : (2 * p * r) / (p + r));
  });
  const safe = (x: number): number => (samples === 0 ? NaN : x / samples);
  return {
    states: states.length,
    samples,
    accuracy: safe(hits),
    majority: safe(majorityHits),
    majorityEvent,
    ceiling: safe(ceilingHits),
    macroF1: f1s.length === 0 ? NaN : f1s.reduce((a, b) => a + b, 0) / f1s.length,
    ece: safe(ece),
    nll: safe(nll),
    recall,
    precision,
  };
}
