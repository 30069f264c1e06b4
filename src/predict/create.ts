// The predictor factory: a spec string ("ngram:3", "openai:qwen2.5-7b", "hf:./models/tiny",
// "replay:preds.jsonl", "student:adapters/kl", …) plus a context → a Predictor.
// Options are normalised here once; the backends never re-validate them.
//
// Trained students (docs/training.md): `student:PATH` calls context.loadStudent (the train stage's
// loadStudentPredictor, passed in by the stages after train and by the CLI, so this stage
// never imports train) with PATH as given; its id is `student:PATH` and its configHash
// covers the adapter's weights, so a retrained adapter never reuses stale cache entries.

import type { State } from "../dataset/types.js";
import { contextNgramPredictor, marginalCounts, majorityPredictor, ngramPredictor, uniformPredictor, type TrainingData } from "./baselines.js";
import { calibratedPredictor, type StatePredictions } from "./calibrated.js";
import { PredictorSpecError } from "./errors.js";
import { hfPredictor, type HfOptions } from "./hf.js";
import { openAiPredictor, type OpenAiOptions } from "./openai.js";
import { normalizeWeights } from "./probabilities.js";
import type { PromptOptions } from "./prompt.js";
import { replayPredictor } from "./replay.js";
import type { Predictor, StudentLoader } from "./types.js";

/** Everything a predictor may need beside its spec. Every field is optional. */
export interface PredictorContext {
  /** Training-split samples and/or states, for the fitted baselines (majority, ngram); its class marginal is cal:'s prior. */
  readonly training?: TrainingData;
  /** Validation states (whole families trained on by nobody), which cal:SPEC is calibrated on. */
  readonly validation?: readonly State[];
  /** How predictions of states are obtained (default: the predictor itself); pass the cache when there is a database. */
  readonly predictStates?: StatePredictions;
  /** ngram: pseudo-count added to each event (default 1, Laplace). */
  readonly ngramAddK?: number;
  /** openai: base URL ending in /v1 (default $OPENAI_BASE_URL, else http://127.0.0.1:8000/v1). */
  readonly baseUrl?: string;
  /** openai: requests in flight (default 4). */
  readonly concurrency?: number;
  /** openai: per-request timeout in ms (default 60000). */
  readonly timeoutMs?: number;
  /** openai: retries on 429/5xx/timeouts (default 4). */
  readonly maxRetries?: number;
  /** openai: "auto" | "logprobs" | "json" (default "auto"). */
  readonly openaiMode?: OpenAiOptions["mode"];
  /** hf: fetch from the hub when the model is not a local directory (default false). */
  readonly allowDownload?: boolean;
  /** hf: ONNX weights variant (default "fp32"). */
  readonly dtype?: HfOptions["dtype"];
  /** openai and hf: how much of the prefix the prompt shows. */
  readonly prompt?: PromptOptions;
  /** student: a program's source directory, for static features of programs the adapter has not seen. */
  readonly programDir?: (program: string) => string | undefined;
  /** student: how an adapter becomes a predictor (src/train's loadStudentPredictor). */
  readonly loadStudent?: StudentLoader;
}

/** What a command passes to every predictor it creates; the split-derived parts it fills in itself. */
export type PredictorSettings = Omit<PredictorContext, "training" | "validation" | "predictStates">;

/** The backends a spec can name, for --help texts and error hints. */
export const PREDICTOR_SPECS = [
  "cal:SPEC",
  "uniform",
  "majority",
  "ngram:K",
  "ngram-ctx:K",
  "openai:MODEL",
  "hf:MODEL_OR_PATH",
  "replay:FILE.jsonl",
  "student:PATH",
] as const;

const SPEC_HINT = `Use one of: ${PREDICTOR_SPECS.join(", ")} (see docs/predictors.md).`;

/** Splits "kind:argument" at the first colon; a spec without a colon has an empty argument. */
export function parsePredictorSpec(spec: string): { kind: string; argument: string } {
  const colon = spec.indexOf(":");
  return colon < 0 ? { kind: spec.trim(), argument: "" } : { kind: spec.slice(0, colon).trim(), argument: spec.slice(colon + 1).trim() };
}

function requireArgument(kind: string, argument: string, what: string): string {
  if (argument === "") throw new PredictorSpecError(`predictor spec "${kind}:" needs ${what}`, SPEC_HINT);
  return argument;
}

/**
 * Builds the predictor a spec names. Fitted baselines are fitted here, on
 * context.training; network and model backends connect lazily, on first predict().
 */
export async function createPredictor(spec: string, context: PredictorContext = {}): Promise<Predictor> {
  const { kind, argument } = parsePredictorSpec(spec);
  const training = context.training ?? {};
  switch (kind) {
    case "cal": {
      const inner = await createPredictor(requireArgument(kind, argument, "the predictor to calibrate, e.g. cal:ngram:3"), context);
      return calibratedPredictor(inner, context.validation ?? [], normalizeWeights(marginalCounts(training)), context.predictStates ?? ((p, states) => p.predict(states)));
    }
    case "uniform":
    case "majority":
      if (argument !== "") throw new PredictorSpecError(`predictor "${kind}" takes no argument, got "${spec}"`, `Write just ${kind}.`);
      return kind === "uniform" ? uniformPredictor() : majorityPredictor(training);
    case "ngram":
    case "ngram-ctx": {
      const order = Number(requireArgument(kind, argument, `an order K ≥ 1, e.g. ${kind}:3`));
      if (!Number.isInteger(order) || order < 1 || order > 32) {
        throw new PredictorSpecError(`${kind} order must be an integer from 1 to 32, got "${argument}"`, `Use e.g. ${kind}:3 (the next event given the two previous events).`);
      }
      const addK = context.ngramAddK ?? 1;
      if (!(addK > 0)) throw new PredictorSpecError(`ngram add-k must be positive, got ${addK}`, "Pass a pseudo-count such as 1 or 0.5.");
      return kind === "ngram" ? ngramPredictor(order, addK, training) : contextNgramPredictor(order, addK, training);
    }
    case "openai":
      return openAiPredictor(requireArgument(kind, argument, "a model name, e.g. openai:qwen2.5-7b-instruct"), {
        baseUrl: context.baseUrl,
        concurrency: context.concurrency,
        timeoutMs: context.timeoutMs,
        maxRetries: context.maxRetries,
        mode: context.openaiMode,
        prompt: context.prompt,
      });
    case "hf":
      return hfPredictor(requireArgument(kind, argument, "a model directory or hub id, e.g. hf:./models/qwen2.5-0.5b"), {
        allowDownload: context.allowDownload,
        dtype: context.dtype,
        prompt: context.prompt,
      });
    case "replay":
      return replayPredictor(requireArgument(kind, argument, "a JSONL file, e.g. replay:predictions.jsonl"));
    case "student": {
      const path = requireArgument(kind, argument, "an adapter directory, e.g. student:adapters/kl");
      if (context.loadStudent === undefined) {
        throw new PredictorSpecError(`predictor ${spec} needs a student loader, and none was given`, "Call createPredictor with { loadStudent: loadStudentPredictor } from src/train (the schedlab commands do).");
      }
      return context.loadStudent(path, { programDir: context.programDir });
    }
    default:
      throw new PredictorSpecError(`unknown predictor "${spec}"`, SPEC_HINT);
  }
}
