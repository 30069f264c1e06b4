// The fitted-free and fitted baselines: uniform, majority (the training marginal),
// ngram:K (a Markov model over event/reason tokens fitted on the training programs, with
// back-off and add-k smoothing) and ngram-ctx:K (the same tokens counted in the run's own
// prefix, interpolated down to ngram:K). All pure apart from hashing; predict() never does I/O.

import { createHash } from "node:crypto";
import type { Prefix, Sample, State } from "../dataset/index.js";
import { EVENT_TYPES, isEventType, type EventType } from "../core/index.js";
import { normalizeWeights, uniformProbabilities } from "./probabilities.js";
import type { Prediction, Predictor } from "./types.js";

/** Training data for fitted baselines: samples when there are any, else states (weighted by their counts). */
export interface TrainingData {
  /**
   * Read once per fitted predictor, in one pass: an array, or an iterable that loads the
   * samples as it goes (cross-validation reads its training programs one at a time).
   */
  readonly samples?: Iterable<Sample>;
  readonly states?: readonly State[];
}

const eventIndex = (event: EventType): number => EVENT_TYPES.indexOf(event);

function sha16(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);
}

/** Predicts 1/6 for every event; the configHash is constant. */
export function uniformPredictor(): Predictor {
  return {
    id: "uniform",
    configHash: sha16({ kind: "uniform" }),
    predict: async (states) => states.map(() => ({ probabilities: uniformProbabilities() })),
  };
}

/**
 * Event counts in the training data: each sample counts once, each state (used only when
 * no samples are given) counts its observed next events.
 */
export function marginalCounts(training: TrainingData): number[] {
  const counts = EVENT_TYPES.map(() => 0);
  let samples = 0;
  for (const s of training.samples ?? []) {
    counts[eventIndex(s.next)] += 1;
    samples++;
  }
  if (samples === 0) {
    for (const state of training.states ?? []) {
      for (const [i, e] of EVENT_TYPES.entries()) counts[i] += state.counts[e];
    }
  }
  return counts;
}

/**
 * The majority baseline as a distribution: the training split's marginal frequencies,
 * so its top-1 answer is always the majority class (accuracy = the majority baseline)
 * while its NLL stays finite. No training data gives the uniform distribution.
 * Example: training next events [GoStart, GoStart, GoBlock, GoEnd] → [0, .5, .25, 0, 0, .25].
 */
export function majorityPredictor(training: TrainingData): Predictor {
  const probabilities = normalizeWeights(marginalCounts(training));
  return {
    id: "majority",
    configHash: sha16({ kind: "majority", probabilities }),
    predict: async (states) => states.map(() => ({ probabilities: [...probabilities] })),
  };
}

/**
 * The token of one six-type record: its kind, plus the reason for GoBlock and GoSched
 * (the reason is what distinguishes a channel wait from a mutex wait or a preemption).
 * Example: GoBlock with reason "chan receive" → "GoBlock:chan receive"; GoStart → "GoStart".
 */
export function eventToken(kind: EventType, reason: string): string {
  return (kind === "GoBlock" || kind === "GoSched") && reason !== "" ? `${kind}:${reason}` : kind;
}

/** The last `n` event tokens of a prefix, oldest first (non-event records skipped). */
export function recentTokens(prefix: Prefix, n: number): string[] {
  const tokens: string[] = [];
  for (let i = prefix.end - 1; i >= 0 && tokens.length < n; i--) {
    const r = prefix.records[i];
    if (isEventType(r.kind)) tokens.push(eventToken(r.kind, r.reason));
  }
  return tokens.reverse();
}

/** Next-event counts per context (a context is the tokens joined by "|"; "" is the empty context). */
export type NgramTable = ReadonlyMap<string, readonly number[]>;

export interface NgramModel {
  /** Order K: the next event is conditioned on the K−1 previous tokens. */
  readonly order: number;
  /** Pseudo-count added to each of the six events in the context used. */
  readonly addK: number;
  readonly table: NgramTable;
}

function contextKey(tokens: readonly string[]): string {
  return tokens.join("|");
}

/**
 * Counts, for every context length 0..K−1, which event followed each context in the
 * training data. A sample contributes weight 1; a state contributes its counts.
 */
export function fitNgram(order: number, addK: number, training: TrainingData): NgramModel {
  const table = new Map<string, number[]>();
  const add = (history: readonly string[], counts: readonly number[]): void => {
    for (let len = 0; len <= Math.min(order - 1, history.length); len++) {
      const key = contextKey(history.slice(history.length - len));
      const row = table.get(key) ?? EVENT_TYPES.map(() => 0);
      for (let i = 0; i < row.length; i++) row[i] += counts[i];
      table.set(key, row);
    }
  };
  let samples = 0;
  for (const s of training.samples ?? []) {
    const oneHot = EVENT_TYPES.map((e) => (e === s.next ? 1 : 0));
    add(recentTokens(s.prefix, order - 1), oneHot);
    samples++;
  }
  if (samples === 0) {
    for (const state of training.states ?? []) {
      add(
        recentTokens(state.representative, order - 1),
        EVENT_TYPES.map((e) => state.counts[e]),
      );
    }
  }
  return { order, addK, table };
}

/**
 * P(next | the longest seen suffix of the history, up to K−1 tokens): back off to shorter
 * contexts until one has training counts, then add-k smoothing over the six events:
 * p_e = (n_e + k) / (n + 6k). No counts at all (empty training) gives the uniform distribution.
 * Example: K=2, k=1, context "GoStart" seen followed by GoBlock ×2, GoEnd ×1 →
 * GoBlock (2+1)/(3+6) = 1/3, GoEnd 2/9, every other event 1/9.
 */
export function ngramProbabilities(model: NgramModel, history: readonly string[]): number[] {
  const longest = Math.min(model.order - 1, history.length);
  for (let len = longest; len >= 0; len--) {
    const row = model.table.get(contextKey(history.slice(history.length - len)));
    const total = row?.reduce((a, b) => a + b, 0) ?? 0;
    if (row !== undefined && total > 0) return normalizeWeights(row.map((n) => n + model.addK));
  }
  return uniformProbabilities();
}

/** ngram:K fitted on the training data; the configHash covers K, k and the fitted table. */
export function ngramPredictor(order: number, addK: number, training: TrainingData): Predictor {
  const model = fitNgram(order, addK, training);
  const tableDigest = [...model.table.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    id: `ngram:${order}`,
    configHash: sha16({ kind: "ngram", order, addK, table: tableDigest }),
    predict: async (states: readonly State[]): Promise<Prediction[]> =>
      states.map((state) => ({
        probabilities: ngramProbabilities(model, recentTokens(state.representative, order - 1)),
      })),
  };
}

/**
 * In-context n-gram counts of one run: for every context length L in 0..order−1, which event
 * followed each L-token context *earlier in the same prefix*. Updated one event at a time
 * (`observeContextEvent`), so walking a run forward costs O(events × order).
 * Invariant: after observing the events of records[0 .. end), the counts hold exactly the
 * (context → next event) pairs of that prefix, and `history` its last order−1 tokens.
 */
export interface ContextNgramCounts {
  readonly order: number;
  /** tables[L]: context key (the last L tokens joined by "|") → next-event counts (EVENT_TYPES order). */
  readonly tables: readonly Map<string, Float64Array>[];
  /** The last order−1 tokens of the prefix, oldest first. */
  readonly history: string[];
}

export function newContextNgramCounts(order: number): ContextNgramCounts {
  return { order, tables: Array.from({ length: order }, () => new Map<string, Float64Array>()), history: [] };
}

/** Counts `event` after every suffix context of the history, then appends its token. */
export function observeContextEvent(counts: ContextNgramCounts, kind: EventType, reason: string): void {
  const e = eventIndex(kind);
  const h = counts.history;
  for (let len = 0; len <= Math.min(counts.order - 1, h.length); len++) {
    const table = counts.tables[len];
    const key = contextKey(h.slice(h.length - len));
    let row = table.get(key);
    if (row === undefined) table.set(key, (row = new Float64Array(EVENT_TYPES.length)));
    row[e]++;
  }
  h.push(eventToken(kind, reason));
  if (h.length > counts.order - 1) h.shift();
}

/** The in-context counts after the current history's last `len` tokens (null when never seen). */
export function contextCountsOf(counts: ContextNgramCounts, len: number): Float64Array | null {
  if (len > counts.history.length || len >= counts.order) return null;
  return counts.tables[len].get(contextKey(counts.history.slice(counts.history.length - len))) ?? null;
}

/**
 * The in-context distribution: starting from `base` (the training ngram:K answer), each
 * context length L = 0 … order−1 seen in the prefix interpolates its maximum-likelihood
 * distribution in with Witten–Bell weight λ = n / (n + u) (n its count, u the distinct events
 * that followed it): p_L = λ·c/n + (1 − λ)·p_{L−1}. Longer contexts come last and weigh most;
 * an unseen context leaves the distribution as it was, so an empty prefix returns `base`.
 * Example: base uniform, order 2, prefix tokens A B A B A and the context "A" was followed by
 * B twice (n 2, u 1, λ 2/3) → P(B) ends up well above 1/2.
 */
export function contextNgramProbabilities(counts: ContextNgramCounts, base: readonly number[]): number[] {
  const p = [...base];
  for (let len = 0; len < counts.order; len++) {
    const row = contextCountsOf(counts, len);
    if (row === null) continue;
    let n = 0;
    let distinct = 0;
    for (let i = 0; i < row.length; i++) {
      n += row[i];
      if (row[i] > 0) distinct++;
    }
    if (n === 0) continue;
    const lambda = n / (n + distinct);
    for (let i = 0; i < p.length; i++) p[i] = (lambda * row[i]) / n + (1 - lambda) * p[i];
  }
  return p;
}

/**
 * Walks each run's records once (prefixes of one run share the records array) and calls
 * `visit(i, counts)` for every prefix i in order of its end, with the in-context counts of
 * exactly records[0 .. end).
 */
export function forEachContextPrefix(
  prefixes: readonly Prefix[],
  order: number,
  visit: (index: number, counts: ContextNgramCounts) => void,
): void {
  const byRun = new Map<Prefix["records"], number[]>();
  prefixes.forEach((prefix, i) => {
    const list = byRun.get(prefix.records);
    if (list === undefined) byRun.set(prefix.records, [i]);
    else list.push(i);
  });
  for (const [records, indices] of byRun) {
    indices.sort((a, b) => prefixes[a].end - prefixes[b].end || a - b);
    const counts = newContextNgramCounts(order);
    let applied = 0;
    for (const i of indices) {
      for (; applied < Math.min(prefixes[i].end, records.length); applied++) {
        const r = records[applied];
        if (isEventType(r.kind)) observeContextEvent(counts, r.kind, r.reason);
      }
      visit(i, counts);
    }
  }
}

/**
 * ngram-ctx:K — the n-gram statistics of the state's own (representative) prefix, backed off
 * to ngram:K fitted on the training data (contextNgramProbabilities). It needs no training
 * data to be useful: without any, the base is uniform and only the prefix speaks.
 */
export function contextNgramPredictor(order: number, addK: number, training: TrainingData): Predictor {
  const model = fitNgram(order, addK, training);
  const tableDigest = [...model.table.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    id: `ngram-ctx:${order}`,
    configHash: sha16({ kind: "ngram-ctx", order, addK, table: tableDigest }),
    predict: async (states: readonly State[]): Promise<Prediction[]> => {
      const out: Prediction[] = new Array<Prediction>(states.length);
      forEachContextPrefix(
        states.map((s) => s.representative),
        order,
        (i, counts) => {
          out[i] = {
            probabilities: normalizeWeights(
              contextNgramProbabilities(counts, ngramProbabilities(model, counts.history)),
            ),
          };
        },
      );
      return out;
    },
  };
}
