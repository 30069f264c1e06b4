// runRollouts(): roll out one predictor from the prefixes of a database's held-out states and
// score the rollouts against the runs that share each prefix. Fitted baselines train on the
// training split, as in `schedlab predict` and `schedlab eval`.

import {
  samplesWithPrefixes,
  splitDataOf,
  eventSequence,
  type Abstraction,
  type RunRecords,
  type SampleRow,
  type SplitSource,
  type State,
} from "../dataset/index.js";
import { seededRandom } from "../random.js";
import { UsageError } from "../errors.js";
import { cachedStatePredictions, createPredictor, type PredictorSettings } from "../predict/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { lowerBound, type EventType } from "../core/index.js";
import {
  brokenRuleCounts,
  distributionGap,
  endCounts,
  eventTypeDistribution,
  kStepAccuracy,
  meanInfeasibleMass,
  meanSurvival,
  perStepAccuracy,
  reachedKShare,
} from "./metrics.js";
import { rollOut, type Rollout } from "./rollout.js";
import type { Progress } from "../progress.js";

export interface RolloutRunOptions extends SplitSource {
  readonly predictor: string;
  readonly steps: number;
  readonly samples: number;
  /** Default 1. */
  readonly temperature?: number;
  /** Sample only among event types the state machine accepts (default true); false: the predictor as it is. */
  readonly constrained?: boolean;
  /** Prefixes (test states) rolled out from, chosen evenly over the states in their stored order; default 20. */
  readonly prefixes?: number;
  /** Default 1. */
  readonly seed?: number;
  readonly context?: PredictorSettings;
  readonly onProgress?: Progress;
}

/** The summary metrics of a set of rollouts (see docs/rollout.md). */
export interface RolloutMetrics {
  readonly rollouts: number;
  readonly meanSurvival: number;
  readonly reachedK: number;
  /** Exact-sequence k-step accuracy. */
  readonly kStepAccuracy: number;
  readonly perStepAccuracy: number;
  /** Rolled-out event types (valid steps) as a distribution, EVENT_TYPES order. */
  readonly rolledDistribution: readonly number[];
  /** Event types of the real continuations, EVENT_TYPES order. */
  readonly empiricalDistribution: readonly number[];
  readonly l1: number;
  readonly kl: number;
  /** Mean probability the predictor put on event types the state machine rejected, per step asked. */
  readonly infeasibleMass: number;
  readonly ends: Readonly<Record<string, number>>;
  readonly brokenRules: Readonly<Record<string, number>>;
}

export interface PrefixRollouts {
  readonly stateId: string;
  readonly program: string;
  readonly key: string;
  /** Distinct real continuations (next ≤ k event types) of the samples in the state. */
  readonly continuations: number;
  readonly metrics: RolloutMetrics;
}

export interface RolloutReport {
  readonly predictor: { readonly id: string; readonly configHash: string };
  readonly abstraction: Abstraction;
  readonly holdout: string;
  readonly steps: number;
  readonly samples: number;
  readonly temperature: number;
  readonly constrained: boolean;
  readonly seed: number;
  readonly programs: readonly string[];
  readonly overall: RolloutMetrics;
  readonly prefixes: readonly PrefixRollouts[];
}

/** Pure: the summary metrics of rollouts against real continuations. */
export function summarizeRollouts(
  rollouts: readonly Rollout[],
  continuations: readonly (readonly EventType[])[],
  steps: number,
): RolloutMetrics {
  const rolledDistribution = eventTypeDistribution(rollouts.map((r) => r.events));
  const empiricalDistribution = eventTypeDistribution(continuations);
  const gap = distributionGap(rolledDistribution, empiricalDistribution);
  return {
    rollouts: rollouts.length,
    meanSurvival: meanSurvival(rollouts),
    reachedK: reachedKShare(rollouts),
    kStepAccuracy: kStepAccuracy(rollouts, continuations),
    perStepAccuracy: perStepAccuracy(rollouts, continuations, steps),
    rolledDistribution,
    empiricalDistribution,
    l1: gap.l1,
    kl: gap.kl,
    infeasibleMass: meanInfeasibleMass(rollouts),
    ends: endCounts(rollouts),
    brokenRules: brokenRuleCounts(rollouts),
  };
}

/**
 * The distinct real continuations of a state: for each of its samples, the event types of the
 * run from the sample's position on (the sample's own next event first), at most k of them.
 */
export function realContinuations(
  samples: readonly SampleRow[],
  runs: ReadonlyMap<number, RunRecords>,
  steps: number,
): EventType[][] {
  const seen = new Map<string, EventType[]>();
  const sequences = new Map<number, number[]>();
  for (const sample of samples) {
    const run = runs.get(sample.runId);
    if (run === undefined) continue;
    let events = sequences.get(run.runId);
    if (events === undefined) {
      events = eventSequence(run.records);
      sequences.set(run.runId, events);
    }
    const from = lowerBound(events, sample.end);
    const continuation = events.slice(from, from + steps).map((i) => run.records[i].kind as EventType);
    seen.set(continuation.join(","), continuation);
  }
  return [...seen.values()];
}

/** `count` states spread evenly over `states` (all when count ≥ length), in order. */
export function spreadStates(states: readonly State[], count: number): State[] {
  if (count >= states.length) return [...states];
  return Array.from({ length: count }, (_, i) => states[Math.floor((i * states.length) / count)]);
}

export function validateRolloutOptions(options: RolloutRunOptions): void {
  const positive = (name: string, v: number | undefined) => {
    if (v !== undefined && (!Number.isInteger(v) || v <= 0))
      throw new UsageError(`${name} must be a positive integer, got ${v}`, `Pass e.g. ${name} 10.`);
  };
  positive("--steps", options.steps);
  positive("--samples", options.samples);
  positive("--prefixes", options.prefixes);
  const t = options.temperature;
  if (t !== undefined && !(Number.isFinite(t) && t >= 0))
    throw new UsageError(
      `--temperature must be a number ≥ 0, got ${t}`,
      "Use 1 for the predictor's own distribution, 0 for its most probable event.",
    );
  if (options.seed !== undefined && !Number.isInteger(options.seed))
    throw new UsageError(`--seed must be an integer, got ${options.seed}`, "Pass e.g. --seed 1.");
}

export async function runRollouts(db: SchedlabDatabase, options: RolloutRunOptions): Promise<RolloutReport> {
  validateRolloutOptions(options);
  const progress = options.onProgress ?? (() => {});
  const temperature = options.temperature ?? 1;
  const seed = options.seed ?? 1;
  const constrained = options.constrained ?? true;
  const data = splitDataOf(db, options);
  const holdout = data.split;
  if (holdout.test.length === 0) {
    throw new UsageError(
      `holdout ${holdout.spec} has no test programs (${holdout.description})`,
      "Collect and ingest programs first, or pass another --holdout.",
    );
  }
  const target = data.test;
  const predictor = await createPredictor(options.predictor, {
    ...options.context,
    training: { samples: samplesWithPrefixes(data.fit), states: data.fit.states },
    validation: data.validation.states,
    predictStates: cachedStatePredictions(db),
  });
  const chosen = spreadStates(target.states, options.prefixes ?? 20);
  const samplesByState = new Map<string, SampleRow[]>();
  for (const row of target.samples) {
    const list = samplesByState.get(row.stateId);
    if (list === undefined) samplesByState.set(row.stateId, [row]);
    else list.push(row);
  }
  const random = seededRandom(seed);
  const prefixes: PrefixRollouts[] = [];
  const all: Rollout[] = [];
  const allContinuations: EventType[][] = [];
  for (const [i, state] of chosen.entries()) {
    const rollouts = await rollOut(predictor, state, {
      steps: options.steps,
      samples: options.samples,
      temperature,
      constrained,
      random,
    });
    const continuations = realContinuations(samplesByState.get(state.id) ?? [], target.runs, options.steps);
    prefixes.push({
      stateId: state.id,
      program: state.program,
      key: state.key,
      continuations: continuations.length,
      metrics: summarizeRollouts(rollouts, continuations, options.steps),
    });
    all.push(...rollouts);
    allContinuations.push(...continuations);
    progress(`${predictor.id}: ${i + 1}/${chosen.length} prefixes rolled out`, true);
  }
  return {
    predictor: { id: predictor.id, configHash: predictor.configHash },
    abstraction: data.abstraction,
    holdout: holdout.spec,
    steps: options.steps,
    samples: options.samples,
    temperature,
    constrained,
    seed,
    programs: holdout.test,
    overall: overallMetrics(prefixes, all, allContinuations, options.steps),
    prefixes,
  };
}

/**
 * Overall metrics: survival, reached-k and the distributions over all rollouts; the two
 * accuracies as the mean over prefixes of each prefix's accuracy (each prefix is scored
 * against its own continuations, so they cannot be pooled), NaN prefixes skipped.
 */
function overallMetrics(
  prefixes: readonly PrefixRollouts[],
  all: readonly Rollout[],
  continuations: readonly EventType[][],
  steps: number,
): RolloutMetrics {
  const pooled = summarizeRollouts(all, continuations, steps);
  const mean = (pick: (m: RolloutMetrics) => number): number => {
    const values = prefixes.map((p) => pick(p.metrics)).filter((v) => !Number.isNaN(v));
    return values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
  };
  return { ...pooled, kStepAccuracy: mean((m) => m.kStepAccuracy), perStepAccuracy: mean((m) => m.perStepAccuracy) };
}
