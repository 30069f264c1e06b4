// Types of the fidelity stage (docs/fidelity.md): thresholds, per-relation results and the
// teacher/student summaries that sit beside them.

/** The four output relations between a teacher and a student. */
export const RELATIONS = ["MR1", "MR2", "MR3", "MR4"] as const;
export type Relation = (typeof RELATIONS)[number];

/** Every threshold a fidelity result depends on; printed with every result. */
export interface FidelityThresholds {
  /** MR2: a state violates when KL(teacher‖student) > tau (nats). */
  readonly tau: number;
  /** MR3: the teacher is confident on a state when its top probability ≥ confidence. */
  readonly confidence: number;
  /** MR3: the student must agree with top probability ≥ confidence − delta. */
  readonly delta: number;
  /** MR4: a calibration bin violates when |acc_T(b) − acc_S(b)| > mr4Threshold. */
  readonly mr4Threshold: number;
  /** MR4: number of equal-width confidence bins (15, as for ECE). */
  readonly bins: number;
}

export const DEFAULT_THRESHOLDS: FidelityThresholds = {
  tau: 0.1,
  confidence: 0.8,
  delta: 0.1,
  mr4Threshold: 0.1,
  bins: 15,
};

export interface FidelityOptions {
  readonly thresholds?: Partial<FidelityThresholds>;
  /** Bootstrap resamples of programs (default 2000). */
  readonly resamples?: number;
  /** Bootstrap seed (default 1). */
  readonly seed?: number;
  /** Coverage of the intervals (default 0.95). */
  readonly ciLevel?: number;
}

/** One relation's violation rate over the units it applies to, with a program-bootstrap interval. */
export interface RelationResult {
  /** Violations / units; NaN when the relation applies to no unit. */
  readonly violationRate: number;
  readonly ci: {
    readonly lower: number;
    readonly upper: number;
    readonly confidence: number;
    readonly resamples: number;
    readonly programs: number;
  };
  /** Units (states for MR1–MR3, samples in bins populated by both for MR4) the rate is over. */
  readonly units: number;
  readonly violations: number;
  /** States the relation does not apply to (MR1: tied teacher top; MR3: teacher not confident). */
  readonly excluded: number;
}

/** One bin of the MR4 comparison: both predictors' accuracy among the samples they place there. */
export interface AlignmentBin {
  readonly lower: number;
  readonly upper: number;
  readonly teacherCount: number;
  readonly studentCount: number;
  /** NaN when the predictor puts no sample in the bin. */
  readonly teacherAccuracy: number;
  readonly studentAccuracy: number;
  /** |teacherAccuracy − studentAccuracy|, NaN unless both are populated. */
  readonly gap: number;
  readonly violated: boolean;
}

export interface Mr4Result extends RelationResult {
  /** Unweighted: share of bins populated by both whose gap exceeds the threshold. */
  readonly binViolationShare: number;
  readonly binsCompared: number;
  /** |ECE_T − ECE_S| with a program-bootstrap interval. */
  readonly eceGap: number;
  readonly eceGapCi: RelationResult["ci"];
  readonly bins: readonly AlignmentBin[];
}

/** A predictor's plain scores on the same states and samples. */
export interface PredictorSummary {
  readonly name: string;
  readonly configHash: string;
  /** Top label against each sample's observed next event. */
  readonly accuracy: number;
  readonly accuracyCi: RelationResult["ci"];
  /** Top label against the mode of p̂, per state. */
  readonly modeAccuracy: number;
  readonly ece: number;
  /** Mean top-label probability over states. */
  readonly meanConfidence: number;
  /** States where this predictor's top probability ≥ thresholds.confidence. */
  readonly confidentStates: number;
}

export interface FidelityResult {
  readonly thresholds: FidelityThresholds;
  readonly states: number;
  readonly samples: number;
  readonly programs: number;
  readonly relations: {
    readonly MR1: RelationResult;
    readonly MR2: RelationResult;
    readonly MR3: RelationResult;
    readonly MR4: Mr4Result;
  };
  readonly teacher: PredictorSummary;
  readonly student: PredictorSummary;
}
