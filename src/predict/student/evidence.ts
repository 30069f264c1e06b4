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
import { expertInto, temperInPlace, type StudentCalibration } from "./calibration.js";
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
 * capped at 0.6 (0.12), a tenth of the weight drifts back each event (a memory of about ten
 * events). π and ρ were chosen by leave-family-out CV over four settings, against the fixed
 * share (docs/experiments/training.md, "The expert's share earned by evidence"); κ was raised
 * from 0.3 to 0.6, with a temperature on the mixture fitted on validation, so that a run whose
 * history the in-context n-gram keeps predicting is answered by it even where the student is
 * sure of something else ("Where the student overrides its run's own evidence").
 */
export const DEFAULT_EXPERT_EVIDENCE: ExpertEvidence = { prior: 0.2, switchRate: 0.1, maxShare: 0.6 };

/**
 * How the answer's confidence follows the evidence: the student-and-expert mixture at several
 * temperatures (q^(1/ℓ), renormalised, for each level ℓ) is a mixture of its own, weighed by how
 * likely each level found the run's earlier events. A run whose events the answer keeps
 * predicting while unsure hands the sharper levels the weight; one it keeps getting wrong, the
 * flatter ones. Tempering keeps the order of the events, so the answer's top event is the same
 * at every level: only its confidence moves.
 */
export interface ConfidenceEvidence {
  /** Temperatures, one of them 1 (the mixture as it is). */
  readonly levels: readonly number[];
  /** π_s ∈ (0, 1): the weight the levels other than 1 share before the run has shown anything. */
  readonly prior: number;
  /** ρ_s ∈ (0, 1]: the part of the weight returned to the prior after every event. */
  readonly switchRate: number;
}

/** The confidence mixture `train --confidence-evidence` gives unless told otherwise. */
export const DEFAULT_CONFIDENCE_EVIDENCE: ConfidenceEvidence = {
  levels: [2, 1, 0.5, 0.25],
  prior: 0.2,
  switchRate: 0.05,
};

/** One run's events before the last prefix asked about: where each is, and how likely each expert found it. */
export interface RunLikelihoods {
  /** Record index of each event, increasing. */
  readonly positions: Int32Array;
  /** The student's (calibrated, unmixed) probability of the event that came, at each position. */
  readonly student: Float64Array;
  /** The in-context expert's probability of the event that came, at each position. */
  readonly expert: Float64Array;
  /**
   * When asked for (confidence evidence): at each position the event that came (its EVENT_TYPES
   * index) and the student's and the expert's whole distributions (positions × 2K: student, then expert).
   */
  readonly events?: Uint8Array;
  readonly distributions?: Float64Array;
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
  readonly events: number[];
  readonly distributions: number[];
}

/**
 * Walks every run the prefixes belong to once, from its start to its longest prefix, and
 * records at each event position the student's and the expert's probability of the event
 * that followed (with `distributions`, their whole distributions too). Linear in the run's
 * records (one incremental featurizer per run); with a memo, a run walked by an earlier call
 * goes on from where that walk stopped (a memo is used with one value of `distributions`).
 */
export function prefixEvidence(
  prefixes: readonly Prefix[],
  inputs: FeatureInputs,
  studentAt: StudentDistribution,
  memo?: RunMemo<RunWalk>,
  distributions = false,
): PrefixEvidence {
  const runOf = new Int32Array(prefixes.length);
  const eventsBefore = new Int32Array(prefixes.length);
  const runs: RunLikelihoods[] = [];
  const row = new Float32Array(FEATURE_COUNT);
  const q = new Float64Array(K);
  const c = new Float64Array(K);
  // The walks' featurizers are the memo's own: forEachRun gets a fresh one per run and the
  // walk kept for the run, if any, replaces it.
  forEachRun(prefixes, inputs, (indices, fresh) => {
    const records = prefixes[indices[0]].records;
    const walk = memo?.take(records) ?? {
      featurizer: fresh,
      next: 0,
      positions: [],
      student: [],
      expert: [],
      events: [],
      distributions: [],
    };
    const until = Math.min(records.length, prefixes[indices[indices.length - 1]].end);
    for (; walk.next < until; walk.next++) {
      const s = walk.next;
      const kind = records[s].kind;
      if (!isEventType(kind)) continue;
      walk.featurizer.featuresAt(s, row, 0);
      studentAt(row, q);
      if (!expertInto(row, 0, K, c)) c.fill(1 / K);
      const e = EVENT_INDEX[kind];
      walk.positions.push(s);
      walk.student.push(q[e]);
      walk.expert.push(c[e]);
      if (distributions) {
        walk.events.push(e);
        for (let k = 0; k < K; k++) walk.distributions.push(q[k]);
        for (let k = 0; k < K; k++) walk.distributions.push(c[k]);
      }
    }
    memo?.keep(records, walk);
    const run = runs.length;
    const at = Int32Array.from(walk.positions);
    runs.push({
      positions: at,
      student: Float64Array.from(walk.student),
      expert: Float64Array.from(walk.expert),
      ...(distributions
        ? { events: Uint8Array.from(walk.events), distributions: Float64Array.from(walk.distributions) }
        : {}),
    });
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

/** The prior weights of the confidence levels: 1 − π_s on level 1, π_s shared by the others. */
function levelPrior(c: ConfidenceEvidence): Float64Array {
  const n = c.levels.length;
  return Float64Array.from(c.levels, (l) => (n === 1 ? 1 : l === 1 ? 1 - c.prior : c.prior / (n - 1)));
}

/**
 * The confidence levels' weights after each prefix of a run ((positions + 1) × levels): row 0
 * is the prior; at event j the answer is the mixture m_j = (1 − β_j)·q_j + β_j·c_j with the
 * expert's share β_j = κ·w[j] (w: the run's shareTrajectory), each level's weight is multiplied
 * by the probability m_j^(1/ℓ) (renormalised) gives the event that came, the weights are
 * renormalised, then (1 − ρ_s)·v + ρ_s·prior. Needs the run's distributions.
 */
export function confidenceTrajectory(
  run: RunLikelihoods,
  w: Float64Array,
  maxShare: number,
  c: ConfidenceEvidence,
): Float64Array {
  const { events, distributions } = run;
  if (events === undefined || distributions === undefined)
    throw new Error("confidenceTrajectory needs a walk made with distributions");
  const n = c.levels.length;
  const prior = levelPrior(c);
  const v = new Float64Array((run.positions.length + 1) * n);
  v.set(prior, 0);
  const m = new Float64Array(K);
  const tempered = new Float64Array(K);
  const likelihood = new Float64Array(n);
  for (let j = 0; j < run.positions.length; j++) {
    const beta = maxShare * w[j];
    for (let k = 0; k < K; k++)
      m[k] = (1 - beta) * distributions[j * 2 * K + k] + beta * distributions[j * 2 * K + K + k];
    for (let l = 0; l < n; l++) {
      tempered.set(m);
      if (c.levels[l] !== 1) temperInPlace(tempered, K, c.levels[l]);
      likelihood[l] = Math.max(tempered[events[j]], LIKELIHOOD_FLOOR);
    }
    let total = 0;
    for (let l = 0; l < n; l++) total += v[j * n + l] * likelihood[l];
    for (let l = 0; l < n; l++)
      v[(j + 1) * n + l] = (1 - c.switchRate) * ((v[j * n + l] * likelihood[l]) / total) + c.switchRate * prior[l];
  }
  return v;
}

/** What each prefix earned from its run's earlier events. */
export interface EarnedShares {
  /** The expert's share β at each prefix: κ times the mixture's weight after the events before it. */
  readonly expert: Float64Array;
  /** With confidence evidence: the weights of its levels at each prefix (prefixes × levels); else null. */
  readonly confidence: Float64Array | null;
  readonly levels: readonly number[];
}

/** The expert's share (and, with `confidence`, the confidence levels' weights) at each prefix of `evidence`. */
export function expertShares(
  evidence: PrefixEvidence,
  mixture: ExpertEvidence,
  confidence?: ConfidenceEvidence,
): EarnedShares {
  const trajectories = evidence.runs.map((run) => shareTrajectory(run, mixture));
  const expert = Float64Array.from(
    evidence.runOf,
    (run, i) => mixture.maxShare * trajectories[run][evidence.eventsBefore[i]],
  );
  if (confidence === undefined) return { expert, confidence: null, levels: [1] };
  const n = confidence.levels.length;
  const weights = evidence.runs.map((run, r) =>
    confidenceTrajectory(run, trajectories[r], mixture.maxShare, confidence),
  );
  const out = new Float64Array(evidence.runOf.length * n);
  evidence.runOf.forEach((run, i) => {
    const at = evidence.eventsBefore[i] * n;
    out.set(weights[run].subarray(at, at + n), i * n);
  });
  return { expert, confidence: out, levels: confidence.levels };
}

/**
 * The expert's share (and the confidence levels' weights) at each prefix for a student that
 * reads rows through `network` and whose unmixed calibration of a raw row is
 * `calibrationOf(row)`: the predictor and the training's card both compute it so.
 */
export function studentExpertShares(
  prefixes: readonly Prefix[],
  inputs: FeatureInputs,
  network: NetworkReader,
  calibrationOf: (row: Float32Array) => Calibration,
  mixture: ExpertEvidence,
  memo?: RunMemo<RunWalk>,
  confidence?: ConfidenceEvidence,
): EarnedShares {
  const likelihoods = prefixEvidence(
    prefixes,
    inputs,
    (row, q) => {
      network.read(row, 0, q);
      calibrateInPlace(q, K, calibrationOf(row));
    },
    memo,
    confidence !== undefined,
  );
  return expertShares(likelihoods, mixture, confidence);
}

/** Prefix i's calibration with what its run earned: the expert's share and, with confidence evidence, the levels' weights. */
export function withEarned<C extends StudentCalibration>(c: C, earned: EarnedShares, i: number): C {
  const n = earned.levels.length;
  return earned.confidence === null
    ? { ...c, expertWeight: earned.expert[i] }
    : {
        ...c,
        expertWeight: earned.expert[i],
        confidence: { levels: earned.levels, weights: earned.confidence.subarray(i * n, (i + 1) * n) },
      };
}
