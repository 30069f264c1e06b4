// openai:MODEL — any OpenAI-compatible chat/completions endpoint (vLLM, llama.cpp server,
// Ollama, hosted APIs). Reads the six labels' probabilities from the first answer token's
// top_logprobs (the model answers with a letter A–F per label); when the server gives no
// logprobs, asks for a JSON object of probabilities instead. The API key comes from the
// environment, is sent only in the Authorization header, and is never hashed, stored or printed.

import { createHash } from "node:crypto";
import type { State } from "../dataset/index.js";
import { EVENT_TYPES, type EventType } from "../core/index.js";
import { mapWithConcurrency } from "./concurrency.js";
import { EndpointError, EndpointUnreachableError, ModelResponseError, PredictorSpecError } from "./errors.js";
import { normalizeWeights } from "./probabilities.js";
import { PROMPT_VERSION, renderStatePrompt, type PromptOptions } from "./prompt.js";
import type { Prediction, Predictor } from "./types.js";

/** The letter each label is answered with, in EVENT_TYPES order (one token in every common tokenizer). */
export const LABEL_LETTERS = ["A", "B", "C", "D", "E", "F"] as const;

const LABEL_MEANINGS: Readonly<Record<EventType, string>> = {
  GoCreate: "a goroutine is created by a go statement",
  GoStart: "a runnable goroutine starts running",
  GoBlock: "the running goroutine blocks (channel, select, mutex, sleep, ...)",
  GoUnblock: "a waiting goroutine is made runnable",
  GoSched: "the running goroutine yields or is preempted",
  GoEnd: "a goroutine exits",
};

export interface OpenAiOptions {
  /** Base URL ending in /v1 (default: $OPENAI_BASE_URL, else http://127.0.0.1:8000/v1). */
  readonly baseUrl?: string;
  /** Bearer key; default $OPENAI_API_KEY, else $SCHEDLAB_API_KEY; none is sent when unset. */
  readonly apiKey?: string;
  /** Requests in flight at once (default 4). */
  readonly concurrency?: number;
  /** Per-request timeout in ms (default 60000). */
  readonly timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx, timeouts and dropped connections (default 4). */
  readonly maxRetries?: number;
  /** First backoff delay in ms, doubled per retry, with jitter (default 500). */
  readonly baseDelayMs?: number;
  /** Upper bound on one wait, Retry-After included (default 30000). */
  readonly maxDelayMs?: number;
  /** "auto" (logprobs, JSON when the server has none), "logprobs" or "json" (default "auto"). */
  readonly mode?: "auto" | "logprobs" | "json";
  /** Probability mass given to a label the model's answer leaves out, before renormalising (default 1e-4). */
  readonly floor?: number;
  readonly prompt?: PromptOptions;
  /** Waits between retries; injectable so tests can see the delays instead of sleeping. */
  readonly sleep?: (ms: number) => Promise<void>;
}

interface ResolvedOptions {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly mode: "auto" | "logprobs" | "json";
  readonly floor: number;
  readonly prompt: PromptOptions;
  readonly sleep: (ms: number) => Promise<void>;
}

/** Checks the base URL once, here, so a typo fails at once instead of being retried. */
function checkedBaseUrl(raw: string): string {
  let url: URL | null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new PredictorSpecError(
      `the model endpoint base URL ${JSON.stringify(raw)} is not an http(s) URL`,
      "Pass --base-url with a full URL ending in /v1, e.g. http://127.0.0.1:8000/v1.",
    );
  }
  return raw.replace(/\/+$/, "");
}

function resolveOptions(options: OpenAiOptions): ResolvedOptions {
  const baseUrl = checkedBaseUrl(options.baseUrl ?? process.env.OPENAI_BASE_URL ?? "http://127.0.0.1:8000/v1");
  return {
    baseUrl,
    apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? process.env.SCHEDLAB_API_KEY,
    concurrency: Math.max(1, options.concurrency ?? 4),
    timeoutMs: options.timeoutMs ?? 60_000,
    maxRetries: Math.max(0, options.maxRetries ?? 4),
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    mode: options.mode ?? "auto",
    floor: options.floor ?? 1e-4,
    prompt: options.prompt ?? {},
    sleep: options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
  };
}

/** The system prompt of the logprobs request: each label with its letter and meaning. */
export function letterSystemPrompt(): string {
  const lines = EVENT_TYPES.map((e, i) => `${LABEL_LETTERS[i]} = ${e}: ${LABEL_MEANINGS[e]}`);
  return [
    "You predict the next goroutine scheduling event of a Go program from the recent events of its execution trace.",
    "The possible next events are:",
    ...lines,
    "Answer with the single letter (A, B, C, D, E or F) of the most likely next event and nothing else.",
  ].join("\n");
}

/** The system prompt of the JSON fallback: a probability per label. */
export function jsonSystemPrompt(): string {
  const lines = EVENT_TYPES.map((e) => `${e}: ${LABEL_MEANINGS[e]}`);
  return [
    "You predict the next goroutine scheduling event of a Go program from the recent events of its execution trace.",
    "The possible next events are:",
    ...lines,
    `Answer with a JSON object giving the probability of each, summing to 1, e.g. {${EVENT_TYPES.map((e) => `"${e}": 0.1`).join(", ")}}, and nothing else.`,
  ].join("\n");
}

/**
 * The label a top_logprobs token stands for, or null: a letter A–F (surrounding spaces and
 * punctuation ignored), a label name, or an unambiguous prefix of at least 3 characters of
 * one ("GoBl" → GoBlock; "Go" is shared by all labels and maps to none).
 */
export function labelOfToken(token: string): EventType | null {
  const t = token.trim().replace(/^[\s"'`([*:.]+|[\s"'`)\].,:;*]+$/g, "");
  const letter = LABEL_LETTERS.indexOf(t as (typeof LABEL_LETTERS)[number]);
  if (letter >= 0) return EVENT_TYPES[letter];
  if (t.length < 3) return null;
  const matches = EVENT_TYPES.filter((e) => e.startsWith(t) || t.startsWith(e));
  return matches.length === 1 ? matches[0] : null;
}

interface TopLogprob {
  readonly token: string;
  readonly logprob: number;
}

/**
 * Probabilities from the first answer token's top_logprobs: the probability of every token
 * mapping to a label is summed per label; labels with none get `floor`; the vector is
 * renormalised. Null when no token maps to a label (the caller then falls back to JSON).
 */
export function probabilitiesFromTopLogprobs(top: readonly TopLogprob[], floor: number): number[] | null {
  const mass = EVENT_TYPES.map(() => 0);
  let matched = false;
  for (const { token, logprob } of top) {
    const label = labelOfToken(token);
    if (label === null || !Number.isFinite(logprob)) continue;
    mass[EVENT_TYPES.indexOf(label)] += Math.exp(logprob);
    matched = true;
  }
  return matched ? normalizeWeights(mass, floor) : null;
}

/**
 * Probabilities from a JSON answer such as {"GoBlock": 0.7, "GoStart": 0.3} (code fences and
 * text around the object are tolerated; letter keys A–F are accepted too). Null if unusable.
 */
export function probabilitiesFromJsonAnswer(content: string, floor: number): number[] | null {
  const match = /\{[\s\S]*\}/.exec(content);
  if (match === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(match[0]);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const weights = EVENT_TYPES.map(() => 0);
  let matched = false;
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const label = labelOfToken(key);
    const p = typeof value === "string" ? Number(value) : value;
    if (label === null || typeof p !== "number" || !Number.isFinite(p) || p < 0) continue;
    weights[EVENT_TYPES.indexOf(label)] += p;
    matched = true;
  }
  if (!matched || weights.every((w) => w === 0)) return null;
  return normalizeWeights(weights, floor);
}

/** Milliseconds to wait from a Retry-After header (seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === "") return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Exponential backoff with equal jitter: half the doubled delay fixed, half random. */
export function backoffMs(attempt: number, baseDelayMs: number, maxDelayMs: number, random = Math.random): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
  return ceiling / 2 + random() * (ceiling / 2);
}

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

function networkErrorCode(error: unknown): string | null {
  const cause = (error as { cause?: unknown }).cause;
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (typeof code === "string") return code;
  const nested = (cause as { errors?: unknown[] } | undefined)?.errors;
  const first = Array.isArray(nested) ? (nested[0] as { code?: unknown } | undefined)?.code : undefined;
  return typeof first === "string" ? first : null;
}

function causeMessage(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : (error as Error).message;
}

function errorBodyMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof body.error === "string") return body.error;
    if (typeof body.error?.message === "string") return body.error.message;
    if (typeof body.message === "string") return body.message;
  } catch {
    // not JSON: use the text itself
  }
  return text.slice(0, 300);
}

function hintForStatus(status: number): string {
  if (status === 401 || status === 403)
    return "Set OPENAI_API_KEY (or SCHEDLAB_API_KEY) in the environment to a key this endpoint accepts.";
  if (status === 404)
    return "Check the model name after openai: and that --base-url ends with /v1 (e.g. http://127.0.0.1:8000/v1).";
  if (status === 429) return "The endpoint is rate limiting: lower --concurrency, or retry later.";
  if (status >= 500) return "The model server failed; check its log, then re-run (cached predictions are kept).";
  return "Check the model name and the server's support for chat/completions with logprobs; --predictor openai:MODEL with a JSON-capable model also works.";
}

interface ChatChoice {
  readonly message?: { readonly content?: string | null };
  readonly logprobs?: {
    readonly content?: ReadonlyArray<{ readonly top_logprobs?: readonly TopLogprob[] }> | null;
  } | null;
}

interface ChatResponse {
  readonly choices?: readonly ChatChoice[];
}

/** POSTs one chat/completions request with timeout and retries; returns the parsed body. */
async function postChat(options: ResolvedOptions, body: object): Promise<ChatResponse> {
  const url = `${options.baseUrl}/chat/completions`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey !== undefined && options.apiKey !== "") headers.authorization = `Bearer ${options.apiKey}`;
  let lastProblem: string;
  let lastStatus: number | null;
  for (let attempt = 0; ; attempt++) {
    let wait: number | null = null;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    try {
      const response = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      const text = await response.text();
      if (response.ok) {
        try {
          return JSON.parse(text) as ChatResponse;
        } catch {
          throw new ModelResponseError(
            `${url} answered with a body that is not JSON: ${text.slice(0, 200)}`,
            "Check that --base-url points at an OpenAI-compatible API (it usually ends in /v1).",
          );
        }
      }
      lastStatus = response.status;
      lastProblem = `HTTP ${response.status}: ${errorBodyMessage(text)}`;
      if (response.status !== 408 && response.status !== 429 && response.status < 500) {
        throw new EndpointError(
          `${url} refused the request: ${lastProblem}`,
          hintForStatus(response.status),
          response.status,
        );
      }
      wait = retryAfterMs(response.headers.get("retry-after"));
    } catch (error) {
      if (error instanceof EndpointError || error instanceof ModelResponseError) throw error;
      const code = networkErrorCode(error);
      const aborted = controller.signal.aborted;
      // A refused connection, an unknown host, or a request fetch will not even send (a
      // blocked port) cannot get better by retrying; a reset or a timeout can.
      if (!aborted && (code === null || UNREACHABLE_CODES.has(code))) {
        throw new EndpointUnreachableError(
          `cannot reach the model endpoint ${options.baseUrl} (${code ?? causeMessage(error)})`,
          "Start the server (vLLM, llama.cpp server, Ollama, ...) or pass --base-url with its address, e.g. http://127.0.0.1:8000/v1.",
        );
      }
      lastStatus = null;
      lastProblem = aborted ? `no reply within ${options.timeoutMs} ms` : `connection failed (${code})`;
    } finally {
      clearTimeout(timer);
    }
    if (attempt >= options.maxRetries) {
      throw new EndpointError(
        `${url} failed after ${attempt + 1} attempts: ${lastProblem}`,
        lastStatus === null
          ? "The server is too slow or dropped the connection: raise the per-request timeout (--timeout, " +
              "in ms; default 60000), lower --concurrency, or check the server."
          : hintForStatus(lastStatus),
        lastStatus,
      );
    }
    const delay = Math.min(options.maxDelayMs, wait ?? backoffMs(attempt, options.baseDelayMs, options.maxDelayMs));
    await options.sleep(delay);
  }
}

function firstTopLogprobs(response: ChatResponse): readonly TopLogprob[] | null {
  const content = response.choices?.[0]?.logprobs?.content;
  const top = Array.isArray(content) && content.length > 0 ? content[0].top_logprobs : undefined;
  return Array.isArray(top) && top.length > 0 ? top : null;
}

/**
 * openai:MODEL. Per state: one logprobs request; if the server returns no logprobs (or no
 * top token maps to a label), one JSON request. In "auto" mode a server seen once without
 * logprobs is asked for JSON directly from then on.
 */
export function openAiPredictor(model: string, options: OpenAiOptions = {}): Predictor {
  const o = resolveOptions(options);
  let serverLacksLogprobs = o.mode === "json";
  const configHash = createHash("sha256")
    .update(
      JSON.stringify({
        kind: "openai",
        model,
        baseUrl: o.baseUrl,
        mode: o.mode,
        floor: o.floor,
        prompt: PROMPT_VERSION,
        promptOptions: o.prompt,
      }),
    )
    .digest("hex")
    .slice(0, 16);

  /** Null when the server sent no logprobs at all; else the label probabilities (null if no token matched). */
  const askLogprobs = async (prompt: string): Promise<{ probabilities: number[] | null } | null> => {
    const response = await postChat(o, {
      model,
      messages: [
        { role: "system", content: letterSystemPrompt() },
        { role: "user", content: `${prompt}\n\nWhich event comes next? Answer with one letter, A to F.` },
      ],
      max_tokens: 1,
      temperature: 0,
      logprobs: true,
      top_logprobs: 20,
    });
    const top = firstTopLogprobs(response);
    return top === null ? null : { probabilities: probabilitiesFromTopLogprobs(top, o.floor) };
  };

  let serverRejectsResponseFormat = false;
  const askJson = async (prompt: string, state: State): Promise<number[]> => {
    const body = {
      model,
      messages: [
        { role: "system", content: jsonSystemPrompt() },
        { role: "user", content: `${prompt}\n\nGive the probability of each next event as a JSON object.` },
      ],
      max_tokens: 200,
      temperature: 0,
    };
    let response: ChatResponse;
    try {
      response = await postChat(
        o,
        serverRejectsResponseFormat ? body : { ...body, response_format: { type: "json_object" } },
      );
    } catch (error) {
      // Some servers refuse response_format with a 400; the system prompt alone still asks for JSON.
      if (!(error instanceof EndpointError && error.status === 400) || serverRejectsResponseFormat) throw error;
      serverRejectsResponseFormat = true;
      response = await postChat(o, body);
    }
    const content = response.choices?.[0]?.message?.content ?? "";
    const probabilities = probabilitiesFromJsonAnswer(content, o.floor);
    if (probabilities === null) {
      throw new ModelResponseError(
        `model ${model} gave neither label log-probabilities nor a JSON object of probabilities for ` +
          `state ${state.id}: ${JSON.stringify(content.slice(0, 200))}`,
        "Use a server that supports logprobs (vLLM, llama.cpp server) or a model that follows JSON instructions.",
      );
    }
    return probabilities;
  };

  const predictOne = async (state: State): Promise<Prediction> => {
    const prompt = renderStatePrompt(state, o.prompt);
    if (!serverLacksLogprobs) {
      const fromLogprobs = await askLogprobs(prompt);
      if (fromLogprobs?.probabilities != null) return { probabilities: fromLogprobs.probabilities };
      if (o.mode === "logprobs") {
        throw new ModelResponseError(
          `model ${model} returned no log-probabilities for any of the labels A–F (state ${state.id})`,
          "Use a server that returns top_logprobs (vLLM, llama.cpp server), or drop the logprobs-only mode to fall back to JSON answers.",
        );
      }
      // Only a reply without any logprobs says the server lacks them; an off-label answer is one state's problem.
      if (fromLogprobs === null) serverLacksLogprobs = true;
    }
    return { probabilities: await askJson(prompt, state) };
  };

  return {
    id: `openai:${model}`,
    configHash,
    predict: (states) => mapWithConcurrency(states, o.concurrency, predictOne),
  };
}
