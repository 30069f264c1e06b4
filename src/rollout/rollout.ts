// Multi-step rollouts of any predictor from a prefix (docs/rollout.md): each step asks the predictor
// for the next event type in the state of the extended prefix, samples one (temperature,
// seed), lets the state machine pick the goroutine, and appends the synthesised record.

import { contextKey, eventLabel, prefixHash, stateId, emptyCounts, type Prefix, type State } from "../dataset/index.js";
import type { Predictor } from "../predict/index.js";
import { EVENT_TYPES, isEventType, type EventType, type GoroutineRecord } from "../core/index.js";
import { judgeEvent, type JudgedEvent } from "./choose.js";
import {
  applyTransition,
  machineCounts,
  replayRecords,
  type GoroutineMachine,
  type TransitionRule,
} from "./state-machine.js";

export interface RolloutOptions {
  /** k: events to roll out. */
  readonly steps: number;
  /** n: independent rollouts from the prefix. */
  readonly samples: number;
  /** Sampling temperature: p ∝ q^(1/T); 0 = always the most probable (first on ties). */
  readonly temperature: number;
  /**
   * Sample only among the event types the state machine accepts (the rest are impossible, not
   * improbable: masked and the rest renormalised); false samples from the predictor as it is.
   */
  readonly constrained: boolean;
  /** A source of uniform numbers in [0, 1). */
  readonly random: () => number;
}

/**
 * How a rollout ended: all k steps valid; an invalid event (unconstrained only); no event type
 * valid at all (every goroutine ended or stuck: the program cannot go on); or, constrained,
 * the predictor put no probability on any valid event type.
 */
export type RolloutEnd = "reached-k" | "invalid" | "exhausted" | "no-mass";

export interface Rollout {
  /** Event types of the valid steps, in order; its length is the survival. */
  readonly events: readonly EventType[];
  readonly survival: number;
  readonly end: RolloutEnd;
  /**
   * Per step the predictor was asked (and some event type was valid): the probability it put on
   * event types the state machine rejects. Constrained sampling removes that mass; this keeps
   * the predictor's own error visible.
   */
  readonly infeasibleMass: readonly number[];
  /** The invalid event proposed and the rule it broke (end = "invalid"). */
  readonly invalidEvent?: EventType;
  readonly brokenRule?: TransitionRule;
}

/** One rollout in progress. Invariant: records[0 .. records.length) is the extended prefix. */
interface Walker {
  readonly machine: GoroutineMachine;
  readonly records: GoroutineRecord[];
  readonly events: EventType[];
  readonly infeasibleMass: number[];
  lastLabels: [string, string];
  depth: number;
  done: Rollout | null;
}

/** The last two event labels of a prefix (oldest first, "-" when missing), as the context key uses them. */
function lastLabels(records: readonly GoroutineRecord[], end: number): [string, string] {
  const labels: string[] = [];
  for (let i = end - 1; i >= 0 && labels.length < 2; i--)
    if (isEventType(records[i].kind)) labels.push(eventLabel(records[i]));
  return [labels[1] ?? "-", labels[0] ?? "-"];
}

function eventCount(records: readonly GoroutineRecord[], end: number): number {
  let n = 0;
  for (let i = 0; i < end; i++) if (isEventType(records[i].kind)) n++;
  return n;
}

/**
 * The state a predictor is shown after `step` rolled-out events: the extended prefix as its
 * representative, keyed like the dataset stage would key it where the key follows from the
 * prefix alone (depth: the event index; context: the tracker's counts and the last two labels).
 * split and goroutine keys depend on the run's length or the next subject, so the rollout
 * keeps the starting state's key with "+step". Counts are empty: no run was observed there.
 */
export function rolloutState(
  base: State,
  walker: {
    machine: GoroutineMachine;
    records: readonly GoroutineRecord[];
    lastLabels: readonly string[];
    depth: number;
  },
  step: number,
): State {
  const representative: Prefix = { ...base.representative, records: walker.records, end: walker.records.length };
  if (step === 0) return { ...base, representative };
  let key: string;
  switch (base.abstraction) {
    case "depth":
      key = `depth=${walker.depth}`;
      break;
    case "context":
      key = contextKey(machineCounts(walker.machine), walker.lastLabels);
      break;
    default:
      key = `${base.key} +${step}`;
  }
  return {
    id: stateId(base.abstraction, base.program, key),
    abstraction: base.abstraction,
    program: base.program,
    key,
    counts: emptyCounts(),
    runs: 0,
    representative,
    prefixHash: prefixHash(representative),
  };
}

/** q^(1/T) normalised; T = 0 puts all mass on the first maximum. A zero vector stays zero. */
export function temperatureWeights(q: readonly number[], temperature: number): number[] {
  if (temperature === 0) {
    let best = -1;
    for (let i = 0; i < q.length; i++) if (q[i] > 0 && (best < 0 || q[i] > q[best])) best = i;
    return q.map((_, i) => (i === best ? 1 : 0));
  }
  const w = q.map((p) => (p > 0 ? Math.pow(p, 1 / temperature) : 0));
  const total = w.reduce((a, b) => a + b, 0);
  return total > 0 ? w.map((x) => x / total) : w;
}

/** Index drawn from non-negative weights (need not sum to 1); -1 when they are all zero. */
export function drawIndex(weights: readonly number[], u: number): number {
  const total = weights.reduce((a, b) => a + b, 0);
  if (!(total > 0)) return -1;
  let target = u * total;
  let lastPositive = -1;
  for (let i = 0; i < weights.length; i++) {
    if (weights[i] <= 0) continue;
    lastPositive = i;
    if (target < weights[i]) return i;
    target -= weights[i];
  }
  return lastPositive;
}

function newWalker(prefix: Prefix): Walker {
  const { machine } = replayRecords(prefix.records, prefix.end, prefix.procs);
  return {
    machine,
    records: prefix.records.slice(0, prefix.end),
    events: [],
    infeasibleMass: [],
    lastLabels: lastLabels(prefix.records, prefix.end),
    depth: eventCount(prefix.records, prefix.end),
    done: null,
  };
}

function finish(walker: Walker, end: RolloutEnd, invalidEvent?: EventType, brokenRule?: TransitionRule): void {
  walker.done = {
    events: walker.events,
    survival: walker.events.length,
    end,
    infeasibleMass: walker.infeasibleMass,
    ...(invalidEvent === undefined ? {} : { invalidEvent, brokenRule }),
  };
}

/** Appends the synthesised record of a valid event and advances the machine. */
function advance(walker: Walker, event: EventType, goroutine: number, actor: number | null, reason: string): void {
  const previous = walker.records[walker.records.length - 1];
  const record: GoroutineRecord = {
    seq: walker.records.length,
    timeNs: (previous?.timeNs ?? 0) + 1,
    kind: event,
    goroutine,
    actor,
    reason,
    site: null,
  };
  walker.records.push(record);
  applyTransition(walker.machine, record);
  walker.events.push(event);
  walker.lastLabels = [walker.lastLabels[1], eventLabel(record)];
  walker.depth++;
}

/** The predictor's probability on event types the state machine rejects (q need not sum to 1). */
function infeasibleMass(q: readonly number[], judged: readonly JudgedEvent[]): number {
  let total = 0;
  let outside = 0;
  q.forEach((p, k) => {
    total += p;
    if (!judged[k].verdict.valid) outside += p;
  });
  return total > 0 ? outside / total : 0;
}

/** The reason a synthesised record carries: the predictor's block-reason tag for GoBlock if any, else "". */
function reasonFor(event: EventType, blockReason: string | undefined): string {
  return event === "GoBlock" && blockReason !== undefined ? blockReason : "";
}

/**
 * n rollouts of k steps from `state`'s representative prefix. All live rollouts are asked in
 * one predictor batch per step. The random source is consumed in a fixed order (step, then
 * rollout), so a seed reproduces the rollouts for a deterministic predictor.
 */
export async function rollOut(predictor: Predictor, state: State, options: RolloutOptions): Promise<Rollout[]> {
  const walkers = Array.from({ length: options.samples }, () => newWalker(state.representative));
  for (let step = 0; step < options.steps; step++) {
    const live = walkers.filter((w) => w.done === null);
    if (live.length === 0) break;
    const predictions = await predictor.predict(live.map((w) => rolloutState(state, w, step)));
    live.forEach((walker, i) => {
      const prediction = predictions[i];
      const judged = EVENT_TYPES.map((event) => judgeEvent(walker.machine, event));
      if (judged.every((j) => !j.verdict.valid)) return finish(walker, "exhausted");
      walker.infeasibleMass.push(infeasibleMass(prediction.probabilities, judged));
      const q = options.constrained
        ? prediction.probabilities.map((p, k) => (judged[k].verdict.valid ? p : 0))
        : prediction.probabilities;
      const e = drawIndex(temperatureWeights(q, options.temperature), options.random());
      if (e < 0) return finish(walker, options.constrained ? "no-mass" : "invalid");
      const { transition, verdict } = judged[e];
      if (!verdict.valid || transition === null)
        return finish(walker, "invalid", EVENT_TYPES[e], verdict.valid ? undefined : verdict.rule);
      advance(
        walker,
        EVENT_TYPES[e],
        transition.goroutine,
        transition.actor,
        reasonFor(EVENT_TYPES[e], prediction.tags?.blockReason),
      );
    });
  }
  for (const walker of walkers) if (walker.done === null) finish(walker, "reached-k");
  return walkers.map((w) => w.done!);
}
