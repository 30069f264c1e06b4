// How `schedlab run` runs one stage: a descriptor (name, work, still-valid check) and the
// very input object its work receives. The input's content hash, with the schedlab version,
// decides whether the stage is skipped: what is hashed is what the work is given, so the two
// cannot drift apart. Loaded data (a SplitData) is hashed by its fingerprint.

import { SchedlabError } from "../errors.js";
import type { SchedlabDatabase } from "../store/index.js";
import { SCHEDLAB_VERSION } from "../version.js";
import { collectGarbage } from "../memory.js";
import { contentHash, readStage, writeStage } from "./store.js";
import type { Progress } from "../progress.js";
import type { PipelineSettings, StageTiming } from "./types.js";

/** Progress of one stage: a line, or a transient counter a terminal may overwrite (printed as "[stage] …"). */
export type Say = Progress;

/** What every stage may use: the open database, the settings, and where progress, timings and warnings go. */
export interface StageContext {
  readonly db: SchedlabDatabase;
  readonly settings: PipelineSettings;
  /** Stage lines ("[eval] done in 3.1s: …") and, transient, their counters. */
  readonly progress: Progress;
  /** performance.now() when the pipeline started, for "started at" lines. */
  readonly started: number;
  readonly timings: StageTiming[];
  readonly warnings: string[];
  /** Aborted (Ctrl-C, SIGTERM): no further stage starts. */
  readonly signal?: AbortSignal;
  /** Told each stage's name as it is reached. */
  readonly onStage?: (name: string) => void;
}

/** The pipeline was interrupted between stages; every finished stage is stored and is skipped by the next run. */
export class PipelineInterruptedError extends SchedlabError {
  constructor(before: string) {
    super(
      `run interrupted before the ${before} stage; the stages before it are stored`,
      "Run the same command again to resume: finished stages and recorded runs are skipped.",
      130,
    );
  }
}

export interface StageDescriptor<I, O> {
  /** Stage name in progress lines, timings and the pipeline_stages table, e.g. "train" or "eval:kernels". */
  readonly name: string;
  /** An optional stage's failure becomes a warning and the pipeline goes on without its output. */
  readonly optional?: boolean;
  readonly work: (input: I, say: Say, context: StageContext) => Promise<{ readonly output: O; readonly note: string }>;
  /** Whether a stored output can still be used (e.g. the adapter files or the eval run still exist). */
  readonly stillValid?: (output: O, context: StageContext) => boolean;
}

/** The hash a stage's input is stored under: the stage, the schedlab version and the input (loaded data by fingerprint). */
export function stageInputHash(name: string, input: unknown): string {
  return contentHash({ name, version: SCHEDLAB_VERSION, input }, (_key, value: unknown) =>
    typeof value === "object" &&
    value !== null &&
    "fingerprint" in value &&
    typeof (value as { fingerprint: unknown }).fingerprint === "string"
      ? { fingerprint: (value as { fingerprint: string }).fingerprint }
      : value,
  );
}

/**
 * Runs `stage` on `input` unless it last completed with the same input hash (and its stored
 * output is still valid); records the hash and output on success. An optional stage that
 * fails returns null after adding a warning; an essential one rethrows. Either way the stage's
 * garbage is collected before the next one starts.
 */
export async function runStage<I, O>(context: StageContext, stage: StageDescriptor<I, O>, input: I): Promise<O | null> {
  if (context.signal?.aborted === true) throw new PipelineInterruptedError(stage.name);
  context.onStage?.(stage.name);
  const inputHash = stageInputHash(stage.name, input);
  const previous = readStage(context.db, stage.name);
  if (
    !context.settings.force &&
    previous !== null &&
    previous.inputHash === inputHash &&
    (stage.stillValid?.(previous.output as O, context) ?? true)
  ) {
    const note = "inputs unchanged";
    context.progress(`[${stage.name}] skipped: ${note}`);
    context.timings.push({ stage: stage.name, status: "skipped", elapsedMs: 0, note });
    return previous.output as O;
  }
  context.progress(`[${stage.name}] started at ${((performance.now() - context.started) / 1000).toFixed(1)}s`);
  const started = performance.now();
  try {
    const say: Say = (message, transient) => context.progress(`[${stage.name}] ${message}`, transient);
    const { output, note } = await stage.work(input, say, context);
    const elapsedMs = performance.now() - started;
    writeStage(context.db, stage.name, { inputHash, output, elapsedMs });
    context.progress(`[${stage.name}] done in ${(elapsedMs / 1000).toFixed(1)}s: ${note}`);
    context.timings.push({ stage: stage.name, status: "done", elapsedMs, note });
    return output;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    context.timings.push({
      stage: stage.name,
      status: "failed",
      elapsedMs: performance.now() - started,
      note: message,
    });
    if (stage.optional !== true) throw error;
    const hint = error instanceof SchedlabError ? ` (${error.hint})` : "";
    context.warnings.push(`${stage.name}: ${message}${hint}`);
    context.progress(`[${stage.name}] failed, going on without it: ${message}`);
    return null;
  } finally {
    // What the stage's work allocated is dead now unless its output holds it.
    collectGarbage();
  }
}
