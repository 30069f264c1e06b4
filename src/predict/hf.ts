// hf:MODEL_OR_PATH — a local causal language model run through @huggingface/transformers.
// Each of the six labels is scored as a continuation of the prompt (sum of the log-probs
// of its tokens); a softmax over the six scores gives the probabilities. Offline by
// default: nothing is downloaded unless allowDownload is set.

import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { State } from "../dataset/index.js";
import { EVENT_TYPES } from "../core/index.js";
import { ModelNotFoundError, ModelResponseError } from "./errors.js";
import { logSoftmax, softmax } from "./probabilities.js";
import { PROMPT_VERSION, renderStatePrompt, type PromptOptions } from "./prompt.js";
import type { Predictor } from "./types.js";

export interface HfOptions {
  /** Fetch the model from the Hugging Face hub when it is not a local directory (default false). */
  readonly allowDownload?: boolean;
  /** ONNX weights variant, e.g. "fp32" (onnx/model.onnx, the default), "q8", "fp16". */
  readonly dtype?: "fp32" | "fp16" | "q8" | "int8" | "uint8" | "q4" | "bnb4" | "q4f16";
  /** Longest prompt in tokens; older tokens are dropped first (default 1024). */
  readonly maxPromptTokens?: number;
  readonly prompt?: PromptOptions;
}

/** The text after which each label is scored as a continuation " GoCreate", " GoStart", … */
export function continuationPrompt(state: State, prompt: PromptOptions = {}): string {
  return `${renderStatePrompt(state, prompt)}\nNext event:`;
}

/** Where the model comes from: a local directory, or a hub id (only with allowDownload). */
type ModelSource = { readonly kind: "local"; readonly dir: string } | { readonly kind: "hub"; readonly id: string };

/** Resolves MODEL_OR_PATH; a missing local model without allowDownload is a ModelNotFoundError. */
export function resolveModelSource(modelOrPath: string, allowDownload: boolean): ModelSource {
  const dir = resolve(modelOrPath);
  if (existsSync(dir)) {
    const missing = ["config.json", "tokenizer.json", "onnx"].filter((f) => !existsSync(join(dir, f)));
    if (missing.length > 0) {
      throw new ModelNotFoundError(
        `${dir} is not a transformers.js model directory: it lacks ${missing.join(", ")}`,
        "Point hf: at a directory with config.json, tokenizer.json and onnx/model.onnx (an ONNX export, e.g. from optimum).",
      );
    }
    return { kind: "local", dir };
  }
  if (!allowDownload) {
    throw new ModelNotFoundError(
      `no local model at ${dir}`,
      "Pass hf:PATH with a local model directory (config.json, tokenizer.json, onnx/model.onnx), " +
        `or add --allow-download to fetch "${modelOrPath}" from the hub.`,
    );
  }
  return { kind: "hub", id: modelOrPath };
}

/** Identifies the weights: sizes and modification times of the model's files (cheap even for large models). */
function localFingerprint(dir: string): string[] {
  const files = [
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    ...readdirSync(join(dir, "onnx")).map((f) => join("onnx", f)),
  ];
  return files
    .filter((f) => existsSync(join(dir, f)))
    .map((f) => {
      const s = statSync(join(dir, f));
      return `${f}:${s.size}:${Math.round(s.mtimeMs)}`;
    });
}

interface LoadedModel {
  encode(text: string, addSpecialTokens: boolean): number[];
  /** Logits [batch, seq, vocab] for right-padded sequences. */
  logits(sequences: readonly number[][]): Promise<{ data: Float32Array; seq: number; vocab: number }>;
  /** The longest sequence the model accepts (config max_position_embeddings / n_positions), or null if unstated. */
  readonly maxPositions: number | null;
}

async function loadModel(source: ModelSource, options: HfOptions): Promise<LoadedModel> {
  const transformers = await import("@huggingface/transformers");
  const { AutoModelForCausalLM, AutoTokenizer, Tensor, env } = transformers;
  env.allowLocalModels = true;
  env.allowRemoteModels = source.kind === "hub";
  const name = source.kind === "local" ? source.dir : source.id;
  const loadOptions = { local_files_only: source.kind === "local", dtype: options.dtype ?? "fp32" } as const;
  let tokenizer: Awaited<ReturnType<typeof AutoTokenizer.from_pretrained>>;
  let model: Awaited<ReturnType<typeof AutoModelForCausalLM.from_pretrained>>;
  try {
    tokenizer = await AutoTokenizer.from_pretrained(name, { local_files_only: loadOptions.local_files_only });
    model = await AutoModelForCausalLM.from_pretrained(name, loadOptions);
  } catch (error) {
    throw new ModelNotFoundError(
      `cannot load the model ${name} with transformers.js: ${(error as Error).message}`,
      source.kind === "local"
        ? "Check that the directory holds a causal LM exported to ONNX (onnx/model.onnx for fp32, or pass the matching dtype)."
        : "Check the model id and the network, or download the model yourself and pass hf:PATH.",
    );
  }
  const padToken = (tokenizer as unknown as { pad_token_id?: number | null }).pad_token_id;
  const padId = typeof padToken === "number" ? padToken : 0;
  const config = model.config as unknown as { max_position_embeddings?: unknown; n_positions?: unknown };
  const positions = [config.max_position_embeddings, config.n_positions].find(
    (n): n is number => typeof n === "number" && n > 0,
  );
  return {
    maxPositions: positions ?? null,
    encode: (text, addSpecialTokens) => tokenizer.encode(text, { add_special_tokens: addSpecialTokens }),
    logits: async (sequences) => {
      const seq = Math.max(...sequences.map((s) => s.length));
      const ids = new BigInt64Array(sequences.length * seq);
      const mask = new BigInt64Array(sequences.length * seq);
      sequences.forEach((s, row) => {
        for (let j = 0; j < seq; j++) {
          ids[row * seq + j] = BigInt(j < s.length ? s[j] : padId);
          mask[row * seq + j] = j < s.length ? 1n : 0n;
        }
      });
      const output = (await model.forward({
        input_ids: new Tensor("int64", ids, [sequences.length, seq]),
        attention_mask: new Tensor("int64", mask, [sequences.length, seq]),
      })) as { logits: { data: Float32Array; dims: number[] } };
      return { data: output.logits.data, seq, vocab: output.logits.dims[2] };
    },
  };
}

/**
 * The token ids of each label as a continuation of `promptIds`: the tail of the encoded
 * prompt+label when it extends the encoded prompt, else the label encoded on its own.
 */
function labelContinuations(model: LoadedModel, promptText: string, promptIds: readonly number[]): number[][] {
  return EVENT_TYPES.map((label) => {
    const full = model.encode(`${promptText} ${label}`, true);
    const extends_ = full.length > promptIds.length && promptIds.every((id, i) => full[i] === id);
    return extends_ ? full.slice(promptIds.length) : model.encode(` ${label}`, false);
  });
}

/** Scores the six labels after one prompt: log P(label tokens | prompt), summed over the label's tokens. */
async function labelScores(model: LoadedModel, state: State, options: HfOptions): Promise<number[]> {
  const promptText = continuationPrompt(state, options.prompt);
  const encodedPrompt = model.encode(promptText, true);
  const labels = labelContinuations(model, promptText, encodedPrompt);
  const longestLabel = Math.max(...labels.map((l) => l.length));
  const limit = Math.min(options.maxPromptTokens ?? 1024, model.maxPositions ?? Infinity);
  const budget = Math.max(1, limit - longestLabel);
  const promptIds = encodedPrompt.length > budget ? encodedPrompt.slice(encodedPrompt.length - budget) : encodedPrompt;
  const last = promptIds.length - 1;
  if (labels.every((l) => l.length === 1)) {
    // Every label is one token: one forward pass of the prompt gives all six scores.
    const { data, vocab } = await model.logits([[...promptIds]]);
    const row = logSoftmax(data.subarray(last * vocab, (last + 1) * vocab));
    return labels.map((l) => row[l[0]]);
  }
  const sequences = labels.map((l) => [...promptIds, ...l]);
  const { data, seq, vocab } = await model.logits(sequences);
  return labels.map((tokens, b) => {
    let total = 0;
    tokens.forEach((token, k) => {
      const position = last + k; // logits at position p predict token p+1
      const offset = (b * seq + position) * vocab;
      total += logSoftmax(data.subarray(offset, offset + vocab))[token];
    });
    return total;
  });
}

/** hf:MODEL_OR_PATH. The model is loaded on the first predict() call, so cache hits never load it. */
export function hfPredictor(modelOrPath: string, options: HfOptions = {}): Predictor {
  const source = resolveModelSource(modelOrPath, options.allowDownload ?? false);
  const identity =
    source.kind === "local" ? { dir: source.dir, files: localFingerprint(source.dir) } : { hub: source.id };
  const configHash = createHash("sha256")
    .update(
      JSON.stringify({
        kind: "hf",
        ...identity,
        dtype: options.dtype ?? "fp32",
        maxPromptTokens: options.maxPromptTokens ?? 1024,
        prompt: PROMPT_VERSION,
        promptOptions: options.prompt ?? {},
      }),
    )
    .digest("hex")
    .slice(0, 16);
  let loaded: Promise<LoadedModel> | null = null;
  return {
    id: `hf:${modelOrPath}`,
    configHash,
    predict: async (states) => {
      loaded ??= loadModel(source, options);
      const model = await loaded;
      const predictions = [];
      for (const state of states) {
        let scores: number[];
        try {
          scores = await labelScores(model, state, options);
        } catch (error) {
          throw new ModelResponseError(
            `model ${modelOrPath} failed on state ${state.id}: ${(error as Error).message}`,
            "Check that the model is a causal LM whose ONNX graph takes input_ids and attention_mask and returns logits; a smaller prompt budget can help.",
          );
        }
        predictions.push({ probabilities: softmax(scores) });
      }
      return predictions;
    },
  };
}
