// The student adapter's saved form as inference reads it: weights.json and features.json.

import type { EventType } from "../../core/index.js";
import type { ContextTemperature, FeasibilityRule } from "./calibration.js";
import type { ConfidenceEvidence, ExpertEvidence } from "./evidence.js";
import type { FeatureSpec } from "./features.js";
import type { ModelShape } from "./model.js";
import type { StaticFeatures } from "./static-features.js";
import type { TagClass } from "./tags.js";

/**
 * weights.json of an adapter (format version 2). Version 1 had no prior; the loader reads it
 * with priorWeight 0, which predicts exactly what it did.
 */
export interface StudentWeights {
  readonly format: "schedlab-student";
  readonly formatVersion: 2;
  readonly featureVersion: number;
  readonly shape: ModelShape;
  /** Parameters of the (first) model. */
  readonly params: readonly number[];
  /** Parameters of the other ensemble members (absent: a single model). */
  readonly moreMembers?: readonly (readonly number[])[];
  readonly mean: readonly number[];
  readonly std: readonly number[];
  /**
   * The training range of each column's non-zero raw values; the network reads a non-zero value
   * clipped into it (absent: adapters trained before it, read unclipped).
   */
  readonly low?: readonly number[];
  readonly high?: readonly number[];
  /** Softmax temperature fitted on the validation split. */
  readonly temperature: number;
  /** α in q = (1 − α)·softmax(z / T) + α·prior, fitted with T on the validation split; in [0, 1). */
  readonly priorWeight: number;
  /** The training samples' event frequencies, EVENT_TYPES order. */
  readonly prior: readonly number[];
  /** β, the share of the row's in-context expert (ctx.mix.p.*) mixed in after calibration (absent: 0). */
  readonly expertWeight?: number;
  /** T_m, the temperature on the distribution after the expert is mixed in (absent: 1). */
  readonly mixtureTemperature?: number;
  /** T_c, the temperature on the in-context expert's distribution before it is mixed in (absent: 1). */
  readonly expertTemperature?: number;
  /**
   * The expert's share per row from the run's own earlier events (evidence.ts), in place of the
   * fixed expertWeight (absent: the fixed share).
   */
  readonly expertEvidence?: ExpertEvidence;
  /** With expertEvidence: the student's confidence levels weighed by the run's earlier events (absent: the calibrated student). */
  readonly confidenceEvidence?: ConfidenceEvidence;
  /** Calibration mode "per-member": each member's temperature before the mean (absent: 1 each). */
  readonly memberTemperatures?: readonly number[];
  /** Calibration mode "in-context": the temperature scaled by a feature of the row (absent: none). */
  readonly contextTemperature?: ContextTemperature;
  /** The feasibility rule (absent: "none") and the cap it uses for "cap". */
  readonly feasibility?: FeasibilityRule;
  readonly infeasibleCap?: number;
  readonly eventTypes: readonly EventType[];
  readonly tagClasses: readonly TagClass[];
  /** Whether the static-feature columns were filled in training (else they stay zero). */
  readonly usesStaticFeatures: boolean;
}

/** The training n-gram an adapter stacks into its features, as saved: contexts sorted by key. */
export interface SavedNgram {
  readonly order: number;
  readonly addK: number;
  readonly table: readonly (readonly [string, readonly number[]])[];
}

/** features.json of an adapter: the spec, static features of every program seen, and the stacked n-gram. */
export interface StudentFeatureFile {
  readonly spec: FeatureSpec;
  readonly staticFeatures: Readonly<Record<string, StaticFeatures>>;
  readonly ngram: SavedNgram;
}
