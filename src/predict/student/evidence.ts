// The in-context expert's share earned by evidence (pure): instead of one share β for every
// row, the student and the run's in-context n-gram (the row's ctx.mix.p.* features) are mixed
// with the weight a Bayesian mixture of the two gives after the run's own earlier events — a
// run whose history the n-gram has been predicting better than the student hands it more of the
// answer, whatever code it comes from. The update is "fixed share" (Herbster & Warmuth): after
// each event a share ρ of the weight returns to the prior π, so the mixture can switch back
// when the run changes character. ρ = 1 is the fixed mixture q = (1 − π)·student + π·expert.
//
// Invariant: the share at a prefix depends only on records before its end (the features of
// every earlier event prefix and the events that followed them), never on the run's future.

import { EVENT_TYPES, isEventType, lowerBound, type EventType } from "../../core/index.js";
import type { Prefix } from "../../dataset/index.js";
import { calibrateInPlace, type Calibration } from "../calibration.js";
import { EXPERT_COLUMN } from "./calibration.js";
import { FEATURE_COUNT, forEachRun, type FeatureInputs, type PrefixFeaturizer, type RunMemo } from "./features.js";
import type { NetworkReader } from "./inference.js";

const K = EVENT_TYPES.length;
const EVENT_INDEX: Readonly<Record<EventType, number>> = Object.fromEntries(
  EVENT_TYPES.map((e, i) => [e, i]),
) as Record<EventType, number>;

/** A likelihood is never taken below this, so one surprise cannot zero an expert for good. */
export const LIKELIHOOD_FLOOR = 1e-4;

/** How the expert's share follows the evidence. */
export interface ExpertEvidence {
  /** π ∈ (0, 1): the expert's share before the run has shown anything, and where the share drifts back to. */
  readonly prior: number;
  /** ρ ∈ (0, 1]: the part of the weight returned to π after every event. */
  readonly switchRate: number;
  /** κ ∈ (0, 1]: the share given is κ times the mixture's weight, so an expert never takes all of the answer. */
  readonly maxShare: number;
}

/**
 * The mixture every student uses unless told otherwise: the expert starts at 0.2 of a share
 * capped at 0.3 (0.06), a tenth of the weight drifts back each event (a memory of about ten
 * events). Chosen by leave-family-out CV over four settings, against the fixed share
 * (docs/experiments/training.md, "The expert's share earned by evidence").
 */
export const DEFAULT_EXPERT_EVIDENCE: ExpertEvidence = { prior: 0.2, switchRate: 0.1, maxShare: 0.3 };

/** One run's events before the last prefix asked about: where each is, and how likely each expert found it. */
export interface RunLikelihoods {
  /** Record index of each event, increasing. */
  readonly positions: Int32Array;
  /** The student's (calibrated, unmixed) probability of the event that came, at each position. */
  readonly student: Float64Array;
  /** The in-context expert's probability of the event that came, at each position. */
  readonly expert: Float64Array;
}

/** The likelihoods behind a batch of prefixes: per run, and for each prefix its run and how many of its events precede it. */
export interface PrefixEvidence {
  readonly runs: readonly RunLikelihoods[];
  readonly runOf: Int32Array;
  readonly eventsBefore: Int32Array;
}

/**
 * Writes the student's calibrated distribution over the events (before any expert mixing)
 * for the raw feature row x[0 .. FEATURE_COUNT) into q[0 .. K).
 */
export type StudentDistribution = (x: Float32Array, q: Float64Array) => void;

/** A run's walk so far: its featurizer, the next record to look at, and what was recorded before it. */
export interface RunWalk {
  readonly featurizer: PrefixFeaturizer;
  next: number;
  readonly positions: number[];
  readonly student: number[];
  readonly expert: number[];
}

/**
 * Walks every run the prefixes belong to once, from its start to its longest prefix, and
 * records at each event position the student's and the expert's probability of the event
 * that followed. Linear in the run's records (one incremental featurizer per run); with a
 * memo, a run walked by an earlier call goes on from where that walk stopped.
 */
export function prefixEvidence(
  prefixes: readonly Prefix[],
  inputs: FeatureInputs,
  studentAt: StudentDistribution,
  memo?: RunMemo<RunWalk>,
): PrefixEvidence {
  const runOf = new Int32Array(prefixes.length);
  const eventsBefore = new Int32Array(prefixes.length);
  const runs: RunLikelihoods[] = [];
  const row = new Float32Array(FEATURE_COUNT);
  const q = new Float64Array(K);
  // The walks' featurizers are the memo's own: forEachRun gets a fresh one per run and the
  // walk kept for the run, if any, replaces it.
  forEachRun(prefixes, inputs, (indices, fresh) => {
    const records = prefixes[indices[0]].records;
    const walk = memo?.take(records) ?? { featurizer: fresh, next: 0, positions: [], student: [], expert: [] };
    const until = Math.min(records.length, prefixes[indices[indices.length - 1]].end);
    for (; walk.next < until; walk.next++) {
      const s = walk.next;
      const kind = records[s].kind;
      if (!isEventType(kind)) continue;
      walk.featurizer.featuresAt(s, row, 0);
      studentAt(row, q);
      const e = EVENT_INDEX[kind];
      let sum = 0;
      for (let c = 0; c < K; c++) sum += row[EXPERT_COLUMN + c];
      walk.positions.push(s);
      walk.student.push(q[e]);
      walk.expert.push(sum > 0 ? row[EXPERT_COLUMN + e] / sum : 1 / K);
    }
    memo?.keep(records, walk);
    const run = runs.length;
    const at = Int32Array.from(walk.positions);
    runs.push({ positions: at, student: Float64Array.from(walk.student), expert: Float64Array.from(walk.expert) });
    for (const i of indices) {
      runOf[i] = run;
      eventsBefore[i] = lowerBound(at, prefixes[i].end);
    }
  });
  return { runs, runOf, eventsBefore };
}

/**
 * The expert's share after each prefix of a run: w[0] = π, and after event j, with the
 * posterior w' = w·c_j / (w·c_j + (1 − w)·q_j), w[j + 1] = (1 − ρ)·w' + ρ·π.
 */
export function shareTrajectory(
  run: RunLikelihoods,
  evidence: Pick<ExpertEvidence, "prior" | "switchRate">,
): Float64Array {
  const { prior, switchRate } = evidence;
  const w = new Float64Array(run.positions.length + 1);
  w[0] = prior;
  for (let j = 0; j < run.positions.length; j++) {
    const c = Math.max(run.expert[j], LIKELIHOOD_FLOOR);
    const q = Math.max(run.student[j], LIKELIHOOD_FLOOR);
    const posterior = (w[j] * c) / (w[j] * c + (1 - w[j]) * q);
    w[j + 1] = (1 - switchRate) * posterior + switchRate * prior;
  }
  return w;
}

/** The expert's share at each prefix of `evidence`: κ times the mixture's weight after the events before it. */
export function expertShares(evidence: PrefixEvidence, mixture: ExpertEvidence): Float64Array {
  const trajectories = evidence.runs.map((run) => shareTrajectory(run, mixture));
  return Float64Array.from(evidence.runOf, (run, i) => mixture.maxShare * trajectories[run][evidence.eventsBefore[i]]);
}

/**
 * The expert's share at each prefix for a student that reads rows through `network` and whose
 * unmixed calibration of a raw row is `calibrationOf(row)`: the predictor and the training's card
 * both compute it so.
 */
export function studentExpertShares(
  prefixes: readonly Prefix[],
  inputs: FeatureInputs,
  network: NetworkReader,
  calibrationOf: (row: Float32Array) => Calibration,
  mixture: ExpertEvidence,
  memo?: RunMemo<RunWalk>,
): Float64Array {
  const likelihoods = prefixEvidence(
    prefixes,
    inputs,
    (row, q) => {
      network.read(row, 0, q);
      calibrateInPlace(q, K, calibrationOf(row));
    },
    memo,
  );
  return expertShares(likelihoods, mixture);
}
