// Result types of the evaluation stage: what `evaluate` and `compare` return, what is
// stored in SQLite and what reports read. Numbers that are undefined for the data
// (e.g. a correlation over constant predictions) are NaN here and null in JSON.

import type { Abstraction, Sample, SampleRow, SeenOnce } from "../dataset/index.js";
import type { EventType } from "../core/index.js";
import type { SampleConcentration, WeightedFigures } from "./weighted.js";
import type { BootstrapInterval, McNemarResult, ReliabilityBin, SignFlipResult } from "../metrics/index.js";

/** A sample as evaluation needs it: full Samples and compact SampleRows both fit. */
export type EvaluationSample = Sample | SampleRow;

/** One predictor's answers, aligned with the states given to `evaluate` (defined with the predictors). */
export type { PredictorOutput } from "../predict/index.js";

/** Where the evaluated states come from; every result carries it. */
export interface EvaluationContext {
  readonly abstraction: Abstraction;
  /** The holdout used, in words, e.g. "default: ~20% of the families …". */
  readonly holdout: string;
  /**
   * The majority class of the *training* split, for the majority baseline and the fallback
   * of the leave-one-run-out ceiling. When absent, the most frequent event of the evaluated
   * samples is used and `majoritySource` says "test" (an optimistic baseline).
   */
  readonly majorityClass?: EventType;
  /**
   * The family of a program: bootstraps and paired tests resample families when the test
   * programs span at least MIN_FAMILY_CLUSTERS of them, else programs (each program its own
   * cluster when absent).
   */
  readonly familyOf?: (program: string) => string;
  /** Bootstrap and permutation settings for the intervals, comparisons and correlation tests. */
  readonly bootstrapResamples?: number;
  readonly bootstrapSeed?: number;
}

/** What the intervals and tests resample: families, or programs when there are too few families. */
export interface ClusterUnit {
  readonly unit: "family" | "program";
  /** Number of clusters in the evaluated samples. */
  readonly clusters: number;
}

export interface EventScores {
  /** NaN (null in JSON) when the event was never predicted. */
  readonly precision: number;
  /** NaN when the event never occurred in the evaluated samples. */
  readonly recall: number;
  /** NaN when the event neither occurred nor was predicted; 0 when only one of the two. */
  readonly f1: number;
  readonly support: number;
  /** How many samples the predictor labelled with this event. */
  readonly predicted: number;
}

/** A point of the entropy scatter: one state, entropies in bits. */
export interface EntropyPoint {
  readonly predicted: number;
  readonly empirical: number;
  /** Index of its state's cluster (family, or program) in PredictorEvaluation.entropyClusters; absent before it. */
  readonly cluster?: number;
}

/** The entropy correlation within one cluster (family, or program): does the predictor track the scheduler there? */
export interface ClusterEntropy {
  readonly cluster: string;
  readonly states: number;
  /** Spearman ρ of H(q) and H(p̂) over its states (NaN below 3 states or when either is constant). */
  readonly spearman: number;
  readonly meanPredicted: number;
  readonly meanEmpirical: number;
}

/**
 * The version of `eval --json`'s output (single holdout and `--cv`), its first field
 * `schemaVersion` (docs/metrics.md, "Output"). 2: the accuracy, ECE and NLL on the runs a prefix
 * was not read from, and CV's gap to the leave-one-run-out ceiling taken on them (2026-12-06);
 * 3: `means` (family and program means of accuracy, ECE and NLL) and `concentration` (2026-12-07);
 * 4: `trainOn` (the --train-on spec or null), and under --cv `cv.trainOn` and `cv.holdout` (each
 * `{spec, description}` or null) (2026-12-07); 5: `cap` (the per-program sample cap and the programs it
 * capped; per abstraction under --cv) (2026-12-08); output without the field is version 1.
 */
export const EVAL_JSON_VERSION = 5;

/** All single-step metrics (docs/metrics.md) of one predictor on one set of states. */
export interface PredictorEvaluation {
  readonly name: string;
  readonly configHash: string;
  readonly abstraction: Abstraction;
  readonly holdout: string;
  readonly states: number;
  readonly samples: number;
  readonly programs: number;
  /** What intervals and tests resample (see EvaluationContext.familyOf). */
  readonly clusterUnit: ClusterUnit;
  /** Sample level: top label against each run's observed next event; a tie of m top labels earns 1/m. */
  readonly accuracy: number;
  /** The same accuracy program by program, in order of name (absent in results stored before it). */
  readonly programAccuracy?: readonly ProgramAccuracy[];
  /** Cluster bootstrap 95 % interval of `accuracy`. */
  readonly accuracyInterval: BootstrapInterval;
  /**
   * Accuracy, ECE and NLL with every family, and every program, counted once (src/eval/weighted.ts):
   * the pooled figures weigh programs by their samples. Absent in results stored before them.
   */
  readonly means?: WeightedFigures;
  /** How much of the pooled figures the largest programs hold (the same for every predictor of a result). */
  readonly concentration?: SampleConcentration;
  /**
   * Accuracy on the samples of the runs the predictor did not read: every sample but those of
   * the run its state's representative prefix comes from (docs/metrics.md, "Accuracy on the other
   * runs"). It does not depend on the runs per program, and it is what the leave-one-run-out
   * ceiling bounds. Absent in results stored before it; NaN when every sample is from the read run.
   */
  readonly otherRunsAccuracy?: number;
  readonly otherRunsAccuracyInterval?: BootstrapInterval;
  /** How many samples `otherRunsAccuracy` is over. */
  readonly otherRunsSamples?: number;
  /** ECE and NLL on the same samples (absent in results stored before them). */
  readonly otherRunsEce?: number;
  readonly otherRunsNll?: number;
  /** State level: share of the tied top labels that are a mode of p̂ (any tied mode counts). */
  readonly modeAccuracy: number;
  /** In-sample ceiling: sample-level accuracy of always predicting each state's mode of p̂. */
  readonly ceiling: number;
  /** Leave-one-run-out ceiling: each sample scored against the mode of its state in the other runs. */
  readonly ceilingLoo: number;
  /** States seen once (in-sample ceiling 1), and the samples in them, as shares. */
  readonly seenOnce: SeenOnce;
  /** Sample-level accuracy of always predicting `majorityClass`. */
  readonly majority: number;
  readonly majorityClass: EventType;
  readonly majoritySource: "train" | "test";
  readonly macroF1: number;
  readonly perEvent: Readonly<Record<EventType, EventScores>>;
  /** confusion[observed][predicted], EVENT_TYPES order, samples (a tie of m labels adds 1/m to each column). */
  readonly confusion: readonly (readonly number[])[];
  /** Top-label ECE over 15 equal-width bins, sample-weighted, with tie credit. */
  readonly ece: number;
  /** Cluster bootstrap 95 % interval of `ece`, on the same resamples as `accuracyInterval`. */
  readonly eceInterval: BootstrapInterval;
  readonly reliability: readonly ReliabilityBin[];
  /** Multi-class Brier score over samples, in [0, 2]. */
  readonly brier: number;
  /** Cluster bootstrap 95 % interval of `brier`, on the same resamples as `accuracyInterval` (absent in results stored by older versions). */
  readonly brierInterval?: BootstrapInterval;
  /** Mean −ln q(observed) over samples, nats, probabilities floored at 1e-12. */
  readonly nll: number;
  /** Cluster bootstrap 95 % interval of `nll`, on the same resamples as `accuracyInterval` (absent in results stored by older versions). */
  readonly nllInterval?: BootstrapInterval;
  /** Mean over states of KL(p̂ ‖ q), nats, q floored at 1e-12. */
  readonly kl: number;
  /** Mean over states of Σ|q − p̂| / 6. */
  readonly l1: number;
  /** Spearman ρ between H(q) and H(p̂) over states with ≥ 2 samples. */
  readonly entropySpearman: number;
  /** Within-cluster permutation p-value of ρ (clusters as in clusterUnit). */
  readonly entropySpearmanP: number;
  /** Cluster bootstrap 95 % interval of ρ. */
  readonly entropySpearmanInterval: BootstrapInterval;
  /** The textbook t-test p-value of ρ, which assumes independent states (it does not hold: states of a family are clustered). */
  readonly entropySpearmanPIndependent: number;
  readonly entropyPearson: number;
  /** The t-test p-value of Pearson's r, assuming independent states. */
  readonly entropyPearsonPIndependent: number;
  /** States used for the entropy correlation. */
  readonly entropyStates: number;
  /** Mean entropies (bits) over the same states. */
  readonly meanPredictedEntropy: number;
  readonly meanEmpiricalEntropy: number;
  readonly entropyPoints: readonly EntropyPoint[];
  /** The clusters (clusterUnit) EntropyPoint.cluster numbers, in name order; absent in results stored before them. */
  readonly entropyClusters?: readonly string[];
  /** The entropy correlation cluster by cluster (families, or programs), in name order; absent before it. */
  readonly entropyByCluster?: readonly ClusterEntropy[];
}

/** Paired comparison of two predictors on the same samples. */
export interface PredictorComparison {
  readonly a: string;
  readonly b: string;
  readonly abstraction: Abstraction;
  readonly holdout: string;
  readonly accuracyA: number;
  readonly accuracyB: number;
  /** accuracy(A) − accuracy(B), with a cluster bootstrap interval. */
  readonly difference: BootstrapInterval;
  /** The reported test: cluster sign-flip permutation test of the accuracy difference. */
  readonly clusterTest: SignFlipResult;
  readonly clusterUnit: ClusterUnit;
  /** McNemar's test, which assumes independent samples (they are not): shown labelled, never as the headline p-value. */
  readonly mcnemarIndependent: McNemarResult;
  /**
   * Program by program: where one leads the other by more than a margin (a family's pooled
   * accuracy can hide a program lost). Absent in evaluations stored before it existed.
   */
  readonly programLeads?: ProgramLeads;
}

/** One program's accuracy: the mean tie credit of its samples. */
export interface ProgramAccuracy {
  readonly program: string;
  readonly samples: number;
  readonly accuracy: number;
}

/** One program's accuracy under both predictors of a comparison. */
export interface ProgramLead {
  readonly program: string;
  readonly samples: number;
  readonly accuracyA: number;
  readonly accuracyB: number;
}

/** The programs on which A's accuracy exceeds B's, or B's A's, by more than `margin`. */
export interface ProgramLeads {
  readonly margin: number;
  readonly programs: number;
  readonly aAhead: number;
  readonly bAhead: number;
  /** The largest leads of each, largest first (at most PROGRAM_LEADS_LISTED). */
  readonly largestA: readonly ProgramLead[];
  readonly largestB: readonly ProgramLead[];
}

export interface EvaluationResult {
  readonly abstraction: Abstraction;
  readonly holdout: string;
  readonly predictors: readonly PredictorEvaluation[];
  /** Every pair (i < j) in the order the predictors were given. */
  readonly comparisons: readonly PredictorComparison[];
}

/** Per-sample scoring of one predictor, the input of `compare`. */
export interface SampleScores {
  readonly name: string;
  readonly abstraction: Abstraction;
  readonly holdout: string;
  /** Cluster (family, or program) of each sample. */
  readonly clusters: readonly string[];
  readonly clusterUnit: ClusterUnit;
  /** Program of each sample. */
  readonly programs: readonly string[];
  /** Tie credit of the prediction per sample, in [0, 1]. */
  readonly credit: readonly number[];
}
