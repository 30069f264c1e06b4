import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPredictor } from "../../src/predict/registry.js";
import { EndpointError, EndpointUnreachableError, ModelResponseError } from "../../src/predict/errors.js";
import { labelOfToken, openAiPredictor, probabilitiesFromJsonAnswer, retryAfterMs } from "../../src/predict/openai.js";
import { probabilityVectorProblem } from "../../src/predict/probabilities.js";
import { closedPort, errorReply, logprobsReply, startChatServer, textReply, type ChatServer } from "./chat-server.js";
import { prefixOf, records, stateOf } from "./states.js";

const MODEL = "tiny-chat";
const KEY = "sk-test-do-not-print-1234";
const states = [1, 2, 3, 4, 5, 6].map((i) =>
  stateOf(
    `state${i}`,
    prefixOf(records(["GoCreate", i], ["GoStart", i], ["GoBlock", i, "chan receive"]), 3, `demo/p${i}`),
  ),
);

const close = (actual: readonly number[], expected: readonly number[]): void => {
  actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 9));
};

let server: ChatServer | null = null;
const saved = {
  openai: process.env.OPENAI_API_KEY,
  schedlab: process.env.SCHEDLAB_API_KEY,
  base: process.env.OPENAI_BASE_URL,
};
beforeEach(() => {
  delete process.env.OPENAI_API_KEY;
  delete process.env.OPENAI_BASE_URL;
  process.env.SCHEDLAB_API_KEY = KEY;
});
afterEach(async () => {
  await server?.close();
  server = null;
  for (const [name, value] of [
    ["OPENAI_API_KEY", saved.openai],
    ["SCHEDLAB_API_KEY", saved.schedlab],
    ["OPENAI_BASE_URL", saved.base],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** Records the delays the client asked to wait instead of sleeping. */
function recordedSleep(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}

describe("openai: label probabilities from top_logprobs", () => {
  it("sums letter tokens per label, floors missing labels and renormalises", async () => {
    server = await startChatServer(() =>
      logprobsReply(MODEL, [
        { token: "C", p: 0.5 },
        { token: "B", p: 0.2 },
        { token: "The", p: 0.15 },
        { token: " C", p: 0.1 },
        { token: "A", p: 0.05 },
      ]),
    );
    const predictor = await createPredictor(`openai:${MODEL}`, { baseUrl: server.baseUrl });
    const [p] = await predictor.predict([states[0]]);
    const raw = [0.05, 0.2, 0.6, 1e-4, 1e-4, 1e-4];
    const total = raw.reduce((a, b) => a + b, 0);
    close(
      p.probabilities,
      raw.map((v) => v / total),
    );
    expect(probabilityVectorProblem(p.probabilities)).toBeNull();

    const [request] = server.requests;
    expect(request.body).toMatchObject({
      model: MODEL,
      logprobs: true,
      top_logprobs: 20,
      max_tokens: 1,
      temperature: 0,
    });
    const messages = request.body.messages as Array<{ role: string; content: string }>;
    expect(messages[0].role).toBe("system");
    for (const label of ["GoCreate", "GoStart", "GoBlock", "GoUnblock", "GoSched", "GoEnd"])
      expect(messages[0].content).toContain(label);
    expect(messages[1].content).toContain('GoBlock g1 "chan receive"');
    expect(messages[1].content).toContain("program demo/p1");
    // The rendering's own "answer with a label" line is replaced by the letter question.
    expect(messages[1].content).not.toContain("Answer with one of");
    expect(messages[1].content).toMatch(/Answer with one letter, A to F\.$/);
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(predictor.id).toBe(`openai:${MODEL}`);
    expect(predictor.configHash).not.toContain(KEY);
  });

  it("maps tokens to labels: letters, whole names and unambiguous prefixes only", () => {
    expect(labelOfToken(" D")).toBe("GoUnblock");
    expect(labelOfToken("(F)")).toBe("GoEnd");
    expect(labelOfToken("GoSched")).toBe("GoSched");
    expect(labelOfToken("GoBl")).toBe("GoBlock");
    expect(labelOfToken("Go")).toBeNull();
    expect(labelOfToken("a")).toBeNull();
    expect(labelOfToken("The")).toBeNull();
  });

  it("keeps at most `concurrency` requests in flight and answers in order", async () => {
    server = await startChatServer((request) => {
      const user = (request.body.messages as Array<{ content: string }>)[1].content;
      const letter = user.includes("program demo/p3,") ? "F" : "C";
      return { ...logprobsReply(MODEL, [{ token: letter, p: 0.9 }]), delayMs: 40 };
    });
    const predictor = openAiPredictor(MODEL, { baseUrl: server.baseUrl, concurrency: 2 });
    const predictions = await predictor.predict(states);
    expect(server.requests).toHaveLength(6);
    expect(server.maxInFlight()).toBe(2);
    expect(predictions.map((p) => p.probabilities.indexOf(Math.max(...p.probabilities)))).toEqual([2, 2, 5, 2, 2, 2]);
  });
});

describe("openai: JSON fallback", () => {
  it("asks for a JSON object when the server returns no logprobs, and then goes straight to JSON", async () => {
    server = await startChatServer((request) =>
      request.body.logprobs === true
        ? textReply(MODEL, "C")
        : textReply(MODEL, '```json\n{"GoBlock": 0.6, "GoUnblock": 0.3, "GoEnd": 0.1}\n```'),
    );
    const predictor = openAiPredictor(MODEL, { baseUrl: server.baseUrl, concurrency: 1 });
    const predictions = await predictor.predict(states.slice(0, 2));
    const raw = [1e-4, 1e-4, 0.6, 0.3, 1e-4, 0.1];
    const total = raw.reduce((a, b) => a + b, 0);
    for (const p of predictions)
      close(
        p.probabilities,
        raw.map((v) => v / total),
      );
    // One logprobs request, then JSON for both states.
    expect(server.requests.map((r) => r.body.logprobs === true)).toEqual([true, false, false]);
    expect(server.requests[1].body.response_format).toEqual({ type: "json_object" });
  });

  it("drops response_format when the server refuses it with a 400", async () => {
    server = await startChatServer((request) => {
      if (request.body.logprobs === true) return textReply(MODEL, "B");
      if (request.body.response_format !== undefined) return errorReply(400, "response_format is not supported");
      return textReply(MODEL, '{"GoStart": 1}');
    });
    const [p] = await openAiPredictor(MODEL, { baseUrl: server.baseUrl, floor: 0 }).predict([states[0]]);
    expect(p.probabilities).toEqual([0, 1, 0, 0, 0, 0]);
    expect(server.requests.map((r) => [r.body.logprobs === true, r.body.response_format !== undefined])).toEqual([
      [true, false],
      [false, true],
      [false, false],
    ]);
  });

  it("parses JSON answers leniently but refuses ones without labels", () => {
    close(probabilitiesFromJsonAnswer('Sure: {"A": 1, "B": "1"}', 0) ?? [], [0.5, 0.5, 0, 0, 0, 0]);
    expect(probabilitiesFromJsonAnswer('{"foo": 1}', 1e-4)).toBeNull();
    expect(probabilitiesFromJsonAnswer("GoBlock", 1e-4)).toBeNull();
  });

  it("fails clearly when the model gives neither logprobs nor JSON", async () => {
    server = await startChatServer(() => textReply(MODEL, "I think the goroutine will block."));
    const predictor = openAiPredictor(MODEL, { baseUrl: server.baseUrl });
    await expect(predictor.predict([states[0]])).rejects.toThrow(ModelResponseError);
  });
});

describe("openai: errors, retries and timeouts", () => {
  it("honours Retry-After on 429 and backs off exponentially on 500", async () => {
    server = await startChatServer((_, i) => {
      if (i === 0) return errorReply(429, "Rate limit reached", { "retry-after": "2" });
      if (i === 1 || i === 2) return errorReply(500, "internal error");
      return logprobsReply(MODEL, [{ token: "B", p: 0.99 }]);
    });
    const { delays, sleep } = recordedSleep();
    const predictor = openAiPredictor(MODEL, { baseUrl: server.baseUrl, baseDelayMs: 100, sleep });
    const [p] = await predictor.predict([states[0]]);
    expect(p.probabilities[1]).toBeGreaterThan(0.99);
    expect(server.requests).toHaveLength(4);
    expect(delays[0]).toBe(2000);
    // attempt 1: 100·2¹ = 200 → [100, 200]; attempt 2: 400 → [200, 400].
    expect(delays[1]).toBeGreaterThanOrEqual(100);
    expect(delays[1]).toBeLessThanOrEqual(200);
    expect(delays[2]).toBeGreaterThanOrEqual(200);
    expect(delays[2]).toBeLessThanOrEqual(400);
  });

  it("gives up after maxRetries with the server's message and status", async () => {
    server = await startChatServer(() => errorReply(503, "model is loading"));
    const { delays, sleep } = recordedSleep();
    const predictor = openAiPredictor(MODEL, { baseUrl: server.baseUrl, maxRetries: 2, sleep });
    const failure = await predictor.predict([states[0]]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(EndpointError);
    expect((failure as EndpointError).status).toBe(503);
    expect((failure as Error).message).toMatch(/after 3 attempts: HTTP 503: model is loading/);
    expect(server.requests).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it("does not retry a 401, and never prints the key", async () => {
    server = await startChatServer(() => errorReply(401, "Incorrect API key provided"));
    const failure = await openAiPredictor(MODEL, { baseUrl: server.baseUrl })
      .predict([states[0]])
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(EndpointError);
    expect(server.requests).toHaveLength(1);
    expect((failure as EndpointError).hint).toMatch(/OPENAI_API_KEY/);
    expect(`${(failure as Error).message} ${(failure as EndpointError).hint}`).not.toContain(KEY);
  });

  it("points at --base-url for a 404 route", async () => {
    server = await startChatServer(() => textReply(MODEL, "unused"));
    const wrongBase = server.baseUrl.replace(/\/v1$/, "/api");
    const failure = await openAiPredictor(MODEL, { baseUrl: wrongBase })
      .predict([states[0]])
      .catch((e: unknown) => e);
    expect((failure as EndpointError).status).toBe(404);
    expect((failure as EndpointError).hint).toMatch(/--base-url/);
  });

  it("aborts a reply slower than the timeout and retries, then reports the timeout", async () => {
    server = await startChatServer(() => ({ ...logprobsReply(MODEL, [{ token: "A", p: 1 }]), delayMs: 5_000 }));
    const { sleep } = recordedSleep();
    const predictor = openAiPredictor(MODEL, { baseUrl: server.baseUrl, timeoutMs: 150, maxRetries: 1, sleep });
    const failure = await predictor.predict([states[0]]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(EndpointError);
    expect((failure as Error).message).toMatch(/after 2 attempts: no reply within 150 ms/);
    expect((failure as EndpointError).hint).toMatch(/--timeout/);
    expect(server.requests).toHaveLength(2);
  });

  it("reports an unreachable endpoint at once with advice to start the server or pass --base-url", async () => {
    const port = await closedPort();
    const failure = await openAiPredictor(MODEL, { baseUrl: `http://127.0.0.1:${port}/v1` })
      .predict([states[0]])
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(EndpointUnreachableError);
    expect((failure as Error).message).toMatch(/ECONNREFUSED/);
    expect((failure as EndpointUnreachableError).hint).toMatch(/Start the server .* --base-url/);
  });

  it("does not retry a request fetch refuses to send (a blocked port)", async () => {
    const { delays, sleep } = recordedSleep();
    const failure = await openAiPredictor(MODEL, { baseUrl: "http://127.0.0.1:9/v1", sleep })
      .predict([states[0]])
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(EndpointUnreachableError);
    expect((failure as Error).message).toMatch(/\(bad port\)/);
    expect(delays).toEqual([]);
  });

  it("refuses a base URL that is not an http(s) URL before sending anything", async () => {
    await expect(createPredictor("openai:m", { baseUrl: "localhost:8000/v1" })).rejects.toThrow(/not an http\(s\) URL/);
    await expect(createPredictor("openai:m", { baseUrl: "127.0.0.1:8000" })).rejects.toMatchObject({
      hint: expect.stringContaining("--base-url"),
    });
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs("soon")).toBeNull();
  });
});
