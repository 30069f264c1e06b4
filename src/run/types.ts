// Types of the pipeline run by `schedlab run`: its options, the settings a mode resolves
// to, per-stage progress, and the summary it returns.

import type { Abstraction } from "../dataset/index.js";
import type { BootstrapInterval } from "../eval/index.js";
import type { EventType } from "../trace/types.js";

/** Pipeline stages in execution order. */
export const PIPELINE_STAGES = ["collect", "ingest", "distributions", "train", "eval", "leaks", "rollout", "report"] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

/** Options of `runPipeline`, as the CLI gives them. Everything has a default. */
export interface RunPipelineOptions {
  /** Corpus directory (default "go-programs"). */
  readonly corpus?: string;
  /** Traced runs per program (default 5; 3 with `quick`). */
  readonly runs?: number;
  /** Fewer runs, a stratified subset of the corpus, a shorter deadline, logistic-regression students. */
  readonly quick?: boolean;
  /** SQLite database (default "schedlab.db"). */
  readonly db?: string;
  /** Report directory (default "report"). */
  readonly out?: string;
  /** Where the trained students are saved (default "adapters"). */
  readonly adapters?: string;
  /** Where traces and goroutine dumps go (default "traces"). */
  readonly traces?: string;
  /** Concurrent builds, runs and trace decodes (default: the number of CPUs). */
  readonly jobs?: number;
  /** Deadline per traced run in ms (default 5 000; 2 000 with `quick`). */
  readonly timeoutMs?: number;
  /** State abstraction for distributions, training, evaluation and rollouts (default "depth"). */
  readonly abstraction?: Abstraction;
  /** Redo every stage even when its inputs are unchanged (collect still resumes recorded runs). */
  readonly force?: boolean;
  readonly signal?: AbortSignal;
  /** Stage start/finish/skip notices and in-stage progress lines. */
  readonly onProgress?: (event: PipelineProgress) => void;
}

export type PipelineProgress =
  | { readonly kind: "start"; readonly stage: PipelineStage }
  | { readonly kind: "done"; readonly stage: PipelineStage; readonly elapsedMs: number; readonly note: string }
  | { readonly kind: "skipped"; readonly stage: PipelineStage; readonly note: string }
  | { readonly kind: "message"; readonly stage: PipelineStage; readonly message: string; readonly transient: boolean };

/** Settings the options resolve to; part of every stage's input hash. */
export interface PipelineSettings {
  readonly corpus: string;
  readonly db: string;
  readonly out: string;
  readonly adapters: string;
  readonly traces: string;
  readonly quick: boolean;
  readonly runs: number;
  readonly timeoutMs: number;
  readonly jobs: number | undefined;
  readonly abstraction: Abstraction;
  readonly studentModel: "logreg" | "mlp";
  readonly studentEpochs: number;
  readonly bootstrapResamples: number;
  readonly rollout: { readonly steps: number; readonly samples: number; readonly prefixes: number };
  readonly force: boolean;
}

/** One predictor's headline numbers, as in `schedlab run --json`. */
export interface PredictorSummary {
  readonly name: string;
  readonly spec: string;
  readonly accuracy: number;
  readonly ceiling: number;
  readonly majority: number;
  readonly ece: number;
  /** Program-cluster bootstrap 95 % interval of `ece` (see PredictorEvaluation.eceInterval). */
  readonly eceInterval: BootstrapInterval;
  readonly macroF1: number;
  readonly recall: Readonly<Record<EventType, number | null>>;
}

export interface LeakSummary {
  readonly findings: number;
  readonly programsWithFindings: number;
  readonly programsAnalysed: number;
  /** Against manifest labels; null when nothing was labelled or reported. */
  readonly precision: number | null;
  readonly recall: number | null;
  readonly falsePositivesOnClean: number;
  readonly labelledPrograms: number;
}

export interface RolloutSummary {
  readonly predictor: string;
  readonly steps: number;
  readonly meanSurvival: number;
  readonly kStepAccuracy: number;
  readonly reachedK: number;
}

export interface StageTiming {
  readonly stage: PipelineStage;
  readonly status: "done" | "skipped" | "failed";
  readonly elapsedMs: number;
  readonly note: string;
}

/** What `runPipeline` returns and `schedlab run --json` prints. */
export interface PipelineSummary {
  readonly reportPath: string;
  readonly db: string;
  readonly abstraction: Abstraction;
  readonly programs: number;
  readonly testPrograms: readonly string[];
  readonly evalRunId: number;
  readonly predictors: readonly PredictorSummary[];
  /** Name of the most accurate student, or null when no student could be trained. */
  readonly bestStudent: string | null;
  readonly leaks: LeakSummary | null;
  readonly rollout: RolloutSummary | null;
  readonly stages: readonly StageTiming[];
  /** Problems that did not stop the pipeline (a predictor that failed, an optional stage that could not run). */
  readonly warnings: readonly string[];
}
