// The predictor registry: every kind of predictor a spec string can name ("ngram:3",
// "openai:qwen2.5-7b", "hf:./models/tiny", "replay:preds.jsonl", "student:adapters/kl", …), how
// its spec reads and how it is built from a context. Adding a predictor is one entry in
// PREDICTOR_KINDS. Options are normalised here once; the backends never re-validate them.
//
// Trained students (docs/training.md): `student:PATH` loads the adapter directory PATH (or the one
// context.studentDir maps it to) with src/predict/student; its id is `student:DIR` and its
// configHash covers the adapter's weights, so a retrained adapter never reuses stale cache entries.

import type { State } from "../dataset/index.js";
import {
  contextNgramPredictor,
  marginalCounts,
  majorityPredictor,
  ngramPredictor,
  uniformPredictor,
  type TrainingData,
} from "./baselines.js";
import { calibratedPredictor, type StatePredictions } from "./calibrated.js";
import { PredictorSpecError } from "./errors.js";
import { hfPredictor, type HfOptions } from "./hf.js";
import { openAiPredictor, type OpenAiOptions } from "./openai.js";
import { normalizeWeights } from "./probabilities.js";
import type { PromptOptions } from "./prompt.js";
import { replayPredictor } from "./replay.js";
import { loadStudentPredictor } from "./student/index.js";
import type { Predictor } from "./types.js";

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
  /** student: the adapter directory a spec's PATH names (default: PATH itself); cross-validation maps a recipe to its fold's student. */
  readonly studentDir?: (path: string) => string;
}

/** What a command passes to every predictor it creates; the split-derived parts it fills in itself. */
export type PredictorSettings = Omit<PredictorContext, "training" | "validation" | "predictStates">;

/** One kind of predictor: how its spec reads and how it is built. */
interface PredictorKind {
  /** The spec as help texts show it: the kind, then a colon and what its argument is, if it takes one. */
  readonly usage: string;
  /** Builds the predictor from the spec's argument (the text after the first colon, trimmed). */
  readonly create: (argument: string, context: PredictorContext, spec: string) => Predictor | Promise<Predictor>;
}

function requireArgument(kind: string, argument: string, what: string): string {
  if (argument === "") throw new PredictorSpecError(`predictor spec "${kind}:" needs ${what}`, SPEC_HINT);
  return argument;
}

function noArgument(kind: string, argument: string, spec: string): void {
  if (argument !== "")
    throw new PredictorSpecError(`predictor "${kind}" takes no argument, got "${spec}"`, `Write just ${kind}.`);
}

/** An n-gram order K, an integer from 1 to 32, and the context's add-k pseudo-count. */
function ngramOptions(kind: string, argument: string, context: PredictorContext): { order: number; addK: number } {
  const order = Number(requireArgument(kind, argument, `an order K ≥ 1, e.g. ${kind}:3`));
  if (!Number.isInteger(order) || order < 1 || order > 32) {
    throw new PredictorSpecError(
      `${kind} order must be an integer from 1 to 32, got "${argument}"`,
      `Use e.g. ${kind}:3 (the next event given the two previous events).`,
    );
  }
  const addK = context.ngramAddK ?? 1;
  if (!(addK > 0))
    throw new PredictorSpecError(`ngram add-k must be positive, got ${addK}`, "Pass a pseudo-count such as 1 or 0.5.");
  return { order, addK };
}

/**
 * Every predictor a spec can name, in the order help texts list them. Fitted baselines are
 * fitted on context.training; network and model backends connect lazily, on first predict().
 */
const PREDICTOR_KINDS: readonly PredictorKind[] = [
  {
    usage: "cal:SPEC",
    async create(argument, context) {
      const inner = await createPredictor(
        requireArgument("cal", argument, "the predictor to calibrate, e.g. cal:ngram:3"),
        context,
      );
      return calibratedPredictor(
        inner,
        context.validation ?? [],
        normalizeWeights(marginalCounts(context.training ?? {})),
        context.predictStates ?? ((p, states) => p.predict(states)),
      );
    },
  },
  {
    usage: "uniform",
    create(argument, _context, spec) {
      noArgument("uniform", argument, spec);
      return uniformPredictor();
    },
  },
  {
    usage: "majority",
    create(argument, context, spec) {
      noArgument("majority", argument, spec);
      return majorityPredictor(context.training ?? {});
    },
  },
  {
    usage: "ngram:K",
    create(argument, context) {
      const { order, addK } = ngramOptions("ngram", argument, context);
      return ngramPredictor(order, addK, context.training ?? {});
    },
  },
  {
    usage: "ngram-ctx:K",
    create(argument, context) {
      const { order, addK } = ngramOptions("ngram-ctx", argument, context);
      return contextNgramPredictor(order, addK, context.training ?? {});
    },
  },
  {
    usage: "openai:MODEL",
    create: (argument, context) =>
      openAiPredictor(requireArgument("openai", argument, "a model name, e.g. openai:qwen2.5-7b-instruct"), {
        baseUrl: context.baseUrl,
        concurrency: context.concurrency,
        timeoutMs: context.timeoutMs,
        maxRetries: context.maxRetries,
        mode: context.openaiMode,
        prompt: context.prompt,
      }),
  },
  {
    usage: "hf:MODEL_OR_PATH",
    create: (argument, context) =>
      hfPredictor(requireArgument("hf", argument, "a model directory or hub id, e.g. hf:./models/qwen2.5-0.5b"), {
        allowDownload: context.allowDownload,
        dtype: context.dtype,
        prompt: context.prompt,
      }),
  },
  {
    usage: "replay:FILE.jsonl",
    create: (argument) =>
      replayPredictor(requireArgument("replay", argument, "a JSONL file, e.g. replay:predictions.jsonl")),
  },
  {
    usage: "student:PATH",
    create(argument, context) {
      const path = requireArgument("student", argument, "an adapter directory, e.g. student:adapters/kl");
      return loadStudentPredictor(context.studentDir?.(path) ?? path, { programDir: context.programDir });
    },
  },
];

/** The backends a spec can name, for --help texts and error hints. */
export const PREDICTOR_SPECS: readonly string[] = PREDICTOR_KINDS.map((k) => k.usage);

const SPEC_HINT = `Use one of: ${PREDICTOR_SPECS.join(", ")} (see docs/predictors.md).`;

const KINDS = new Map(PREDICTOR_KINDS.map((k) => [parsePredictorSpec(k.usage).kind, k]));

/** Splits "kind:argument" at the first colon; a spec without a colon has an empty argument. */
export function parsePredictorSpec(spec: string): { kind: string; argument: string } {
  const colon = spec.indexOf(":");
  return colon < 0
    ? { kind: spec.trim(), argument: "" }
    : { kind: spec.slice(0, colon).trim(), argument: spec.slice(colon + 1).trim() };
}

/** Builds the predictor a spec names (see PREDICTOR_KINDS). */
export async function createPredictor(spec: string, context: PredictorContext = {}): Promise<Predictor> {
  const { kind, argument } = parsePredictorSpec(spec);
  const entry = KINDS.get(kind);
  if (entry === undefined) throw new PredictorSpecError(`unknown predictor "${spec}"`, SPEC_HINT);
  return entry.create(argument, context, spec);
}
