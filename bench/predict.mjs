// Prediction throughput, each figure against a reference measured in the same run.
// Usage: npm run build && node bench/predict.mjs [STATES]
//  1. the SQLite cache: answering N states from the cache vs computing them with ngram:3
//     and storing them (ratio > 1 = the cache is faster than the cheapest real backend);
//  2. openai:MODEL against a local server that answers after 10 ms: concurrency 8 vs 1.

import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EVENT_TYPES as KINDS } from "../dist/core/index.js";
import { openDatabase } from "../dist/store/index.js";
import { createPredictor, predictWithCache } from "../dist/predict/index.js";

const n = Number(process.argv[2] ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), "schedlab-bench-predict-"));
const REASONS = ["chan receive", "chan send", "select", "sync", "sleep"];

/** A deterministic pseudo-random run of `length` records. */
function run(seed, length) {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length }, (_, seq) => {
    const kind = KINDS[Math.floor(next() * 6)];
    const reason = kind === "GoBlock" ? REASONS[Math.floor(next() * REASONS.length)] : "";
    return { seq, timeNs: seq, kind, goroutine: 1 + Math.floor(next() * 8), actor: null, reason, site: null };
  });
}

const records = run(7, n + 64);
const counts = Object.fromEntries(KINDS.map((k) => [k, 1]));
const states = Array.from({ length: n }, (_, i) => ({
  id: `s${i.toString(16).padStart(15, "0")}`,
  abstraction: "depth",
  program: "bench",
  key: `depth=${i}`,
  // The cache keys predictions by the prefix's content hash; each state's prefix is distinct.
  prefixHash: `bench-prefix-${i}`,
  counts,
  runs: 1,
  representative: { program: "bench", runId: 1, procs: 2, records, end: 32 + i },
}));
const samples = states.map((s) => ({
  stateId: s.id,
  prefix: s.representative,
  next: records[s.representative.end].kind,
}));

const seconds = async (work) => {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
};

try {
  const db = openDatabase(join(dir, "bench.db"));
  const ngram = await createPredictor("ngram:3", { training: { samples } });
  const computed = await seconds(() => predictWithCache(db, ngram, states, { batchSize: 512 }));
  const cached = await seconds(() => predictWithCache(db, ngram, states, { batchSize: 512 }));
  console.log(
    `cache: ${n} states computed+stored in ${computed.toFixed(3)} s, answered from cache in ${cached.toFixed(3)} s; ratio ${(computed / cached).toFixed(2)}`,
  );
  db.close();

  const reply = JSON.stringify({
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "C" },
        logprobs: {
          content: [
            {
              token: "C",
              logprob: -0.1,
              bytes: [67],
              top_logprobs: [
                { token: "C", logprob: -0.1, bytes: [67] },
                { token: "B", logprob: -2.4, bytes: [66] },
              ],
            },
          ],
        },
        finish_reason: "length",
      },
    ],
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(reply), 10));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${server.address().port}/v1`;
  const few = states.slice(0, 80);
  const serial = await seconds(() =>
    createPredictor("openai:bench", { baseUrl, concurrency: 1 }).then((p) => p.predict(few)),
  );
  const parallel = await seconds(() =>
    createPredictor("openai:bench", { baseUrl, concurrency: 8 }).then((p) => p.predict(few)),
  );
  console.log(
    `openai: ${few.length} states at 10 ms/reply: concurrency 1 ${serial.toFixed(3)} s, ` +
      `concurrency 8 ${parallel.toFixed(3)} s; ratio ${(serial / parallel).toFixed(2)}`,
  );
  server.closeAllConnections();
  server.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
