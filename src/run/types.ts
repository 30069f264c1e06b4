// Types of the pipeline run by `schedlab run`: its options, the settings a mode resolves
// to, per-stage progress, and the summary it returns.

import type { Abstraction, SplitFamilies } from "../dataset/index.js";
import type { EventType } from "../core/index.js";
import type { Progress } from "../progress.js";
import type { CrossValidationBoard, OverviewPredictor } from "../report/index.js";
import type { StudentRecipe } from "../cv/index.js";

/**
 * Pipeline stages in execution order. With test corpora, train, eval and rollout also run as
 * "train:external", "eval:LABEL" and "rollout:LABEL" (one eval and rollout per test corpus).
 */
export const PIPELINE_STAGES = [
  "collect",
  "ingest",
  "distributions",
  "train",
  "eval",
  "rollout",
  "cv",
  "leaks",
  "report",
] as const;

/** Options of `runPipeline`, as the CLI gives them. Everything has a default. */
export interface RunPipelineOptions {
  /** Corpus directory (default "go-programs"). */
  readonly corpus?: string;
  /**
   * Test corpora: each is collected as a test corpus (programs named "<label>/<path>"), never
   * trained on, and evaluated, rolled out and reported beside the in-distribution holdout by
   * students trained on the whole corpus (the split `--holdout corpus:DIR` gives).
   */
  readonly testCorpora?: readonly string[];
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
  /**
   * The students to train, evaluate and cross-validate, as `eval --cv` recipes ("kl",
   * "kl-tags", "kl-confevid", …; default PIPELINE_STUDENTS).
   */
  readonly students?: readonly string[];
  /**
   * Folds of the leave-family-out cross-validation stage (default DEFAULT_RUN_CV_FOLDS; 0: no
   * CV stage): the pipeline's students and baselines at depth, split and the run's abstraction.
   */
  readonly cvFolds?: number;
  /** Redo every stage even when its inputs are unchanged (collect still resumes recorded runs). */
  readonly force?: boolean;
  /** Aborts collect's runs (finished ones stay recorded); no stage starts after it is aborted. */
  readonly signal?: AbortSignal;
  /** Called as each stage is reached, before it is run or skipped, with its name ("collect", "train", …). */
  readonly onStage?: (name: string) => void;
  /** Stage start/finish/skip lines ("[train] done in 41.2s: …") and, transient, in-stage counters. */
  readonly onProgress?: Progress;
}

/** Settings the options resolve to; part of every stage's input hash. */
export interface PipelineSettings {
  readonly corpus: string;
  readonly testCorpora: readonly string[];
  readonly db: string;
  readonly out: string;
  readonly adapters: string;
  readonly traces: string;
  readonly quick: boolean;
  readonly runs: number;
  readonly timeoutMs: number;
  readonly jobs: number | undefined;
  readonly abstraction: Abstraction;
  readonly students: readonly StudentRecipe[];
  readonly studentModel: "logreg" | "mlp";
  readonly studentEpochs: number;
  readonly bootstrapResamples: number;
  /** Folds of the CV stage; 0: none. */
  readonly cvFolds: number;
  readonly rollout: { readonly steps: number; readonly samples: number; readonly prefixes: number };
  readonly force: boolean;
}

/** One predictor's headline numbers, as in `schedlab run --json`. */
export interface PredictorSummary extends OverviewPredictor {
  readonly spec: string;
  readonly recall: Readonly<Record<EventType, number | null>>;
}

/** The student a section's headline and rollout use: the most accurate on the validation families, never chosen on test. */
export interface BestStudent {
  readonly name: string;
  readonly spec: string;
  readonly selectedBy: "validation accuracy";
  readonly validationAccuracy: number | null;
}

export interface LeakSummary {
  /** Bugs that block goroutines forever (counted by --fail-on-leak), and of those the proven ones (a hang or a cycle). */
  readonly bugs: number;
  readonly provenBugs: number;
  /** Deadlocks the recorded lock orders make possible (only in runs built with lock recording: collect --budget). */
  readonly potentialDeadlocks: number;
  /** Goroutines blocked forever (leak or deadlock, counted by --fail-on-leak). */
  readonly findings: number;
  /** Of those, proven (a hang, or every waker gone). */
  readonly proven: number;
  /** The other kinds the rule found, e.g. "1 outlived, 4 background" ("" when none). */
  readonly otherKinds: string;
  readonly programsWithFindings: number;
  readonly programsAnalysed: number;
  /** Against manifest labels; null when nothing was labelled or reported. */
  readonly precision: number | null;
  readonly recall: number | null;
  readonly falsePositivesOnClean: number;
  readonly labelledPrograms: number;
}

/** Survival of rollouts: steps before the first invalid event, and the share that reach k. */
export interface RolloutFigures {
  readonly meanSurvival: number;
  readonly kStepAccuracy: number;
  readonly reachedK: number;
}

/** The sampled rollouts' figures (temperature 1), with the greedy ones (temperature 0) beside them. */
export interface RolloutSummary extends RolloutFigures {
  readonly predictor: string;
  readonly steps: number;
  readonly greedy: RolloutFigures;
}

export interface StageTiming {
  readonly stage: string;
  readonly status: "done" | "skipped" | "failed";
  readonly elapsedMs: number;
  readonly note: string;
}

/** One evaluated test set of a run: the in-distribution holdout, or one test corpus. */
export interface SectionSummary {
  /** The holdout spec that gives this split with `schedlab eval --holdout` (e.g. "default", "corpus:/abs/dir"). */
  readonly holdout: string;
  readonly description: string;
  readonly testPrograms: readonly string[];
  /** Families of the training, validation and test programs. */
  readonly families: SplitFamilies;
  readonly evalRunId: number;
  readonly predictors: readonly PredictorSummary[];
  readonly best: BestStudent | null;
  readonly rollout: RolloutSummary | null;
}

/** A test corpus's section. */
export interface ExternalSummary extends SectionSummary {
  readonly corpus: { readonly label: string; readonly root: string };
}

/** What `runPipeline` returns and `schedlab run --json` prints: the in-distribution section's fields, the test corpora beside it. */
export interface PipelineSummary extends SectionSummary {
  readonly reportPath: string;
  readonly db: string;
  readonly abstraction: Abstraction;
  readonly programs: number;
  readonly external: readonly ExternalSummary[];
  readonly leaks: LeakSummary | null;
  /** The leave-family-out CV scoreboard; null when the stage was turned off (cvFolds 0) or failed. */
  readonly crossValidation: CrossValidationBoard | null;
  readonly stages: readonly StageTiming[];
  /** Problems that did not stop the pipeline (a predictor that failed, an optional stage that could not run). */
  readonly warnings: readonly string[];
}
