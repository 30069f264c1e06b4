// A local OpenAI-compatible chat/completions server for tests (node:http on 127.0.0.1,
// ephemeral port). Each test supplies how to answer the n-th request; the server records
// every request and the most requests it ever had in flight at once.

import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatRequest {
  readonly body: Record<string, unknown>;
  readonly headers: IncomingHttpHeaders;
}

export interface ChatReply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body: unknown;
  /** Wait this long before answering. */
  readonly delayMs?: number;
}

export interface ChatServer {
  readonly baseUrl: string;
  readonly requests: ChatRequest[];
  readonly maxInFlight: () => number;
  close(): Promise<void>;
}

export interface TopToken {
  readonly token: string;
  readonly p: number;
}

/** A 200 reply shaped exactly like OpenAI's with logprobs: choices[0].logprobs.content[0].top_logprobs. */
export function logprobsReply(model: string, top: readonly TopToken[]): ChatReply {
  const entries = top.map(({ token, p }) => ({ token, logprob: Math.log(p), bytes: [...Buffer.from(token, "utf8")] }));
  return {
    body: {
      id: "chatcmpl-test",
      object: "chat.completion",
      created: 1_700_000_000,
      model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: top[0]?.token ?? "", refusal: null },
          logprobs: {
            content: [
              {
                token: entries[0]?.token ?? "",
                logprob: entries[0]?.logprob ?? 0,
                bytes: entries[0]?.bytes ?? [],
                top_logprobs: entries,
              },
            ],
            refusal: null,
          },
          finish_reason: "length",
        },
      ],
      usage: { prompt_tokens: 120, completion_tokens: 1, total_tokens: 121 },
    },
  };
}

/** A 200 reply without logprobs (as from servers that do not support them) and the given text. */
export function textReply(model: string, content: string): ChatReply {
  return {
    body: {
      id: "chatcmpl-test",
      object: "chat.completion",
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message: { role: "assistant", content }, logprobs: null, finish_reason: "stop" }],
      usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
    },
  };
}

/** An OpenAI-style error reply. */
export function errorReply(status: number, message: string, headers: Record<string, string> = {}): ChatReply {
  return { status, headers, body: { error: { message, type: "server_error", param: null, code: null } } };
}

export async function startChatServer(answer: (request: ChatRequest, index: number) => ChatReply): Promise<ChatServer> {
  const requests: ChatRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      const request: ChatRequest = {
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
        headers: req.headers,
      };
      const index = requests.push(request) - 1;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const reply = answer(request, index);
      const send = (): void => {
        inFlight -= 1;
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
        res.end(JSON.stringify(reply.body));
      };
      if (reply.delayMs !== undefined) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
