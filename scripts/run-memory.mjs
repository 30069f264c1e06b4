// Where `schedlab run`'s memory goes (issue 25): runs the pipeline in this process with --force
// (every stage but collect redone; collect resumes recorded runs) on DIR/schedlab.db, DIR/traces
// and DIR/adapters, and prints per stage the highest RSS, heap, external and ArrayBuffer memory
// seen (sampled every 100 ms and at every progress line), each rise of the process's peak RSS
// (getrusage) with the progress lines it happened between, and the peak RSS of the whole run.
// Run it on a copy: it rewrites the database's stage records and the adapters.
//   npm run build && node scripts/run-memory.mjs DIR [TEST_CORPUS]
// With `node --expose-gc` and GC=1 it collects garbage at every stage line, so the heap printed
// on those lines is what was live.

import { join } from "node:path";
import { fileURLToPath } from "node:url";

const [dir, testCorpus] = process.argv.slice(2);
if (dir === undefined) throw new Error("usage: node scripts/run-memory.mjs DIR [TEST_CORPUS]");
const root = fileURLToPath(new URL("..", import.meta.url));
const { runPipeline } = await import(new URL("../dist/run/index.js", import.meta.url).href);

const mb = (bytes) => (bytes / 2 ** 20).toFixed(0);
const peaks = new Map();
let stage = "start";
let lastMessage = "";
let lastMax = 0;
const sample = () => {
  const m = process.memoryUsage();
  const p = peaks.get(stage) ?? { rss: 0, heap: 0, external: 0, arrayBuffers: 0 };
  p.rss = Math.max(p.rss, m.rss);
  p.heap = Math.max(p.heap, m.heapUsed);
  p.external = Math.max(p.external, m.external);
  p.arrayBuffers = Math.max(p.arrayBuffers, m.arrayBuffers);
  peaks.set(stage, p);
};
const timer = setInterval(sample, 100);
const started = performance.now();
await runPipeline({
  corpus: join(root, "go-programs"),
  db: join(dir, "schedlab.db"),
  out: join(dir, "report"),
  adapters: join(dir, "adapters"),
  traces: join(dir, "traces"),
  force: true,
  ...(testCorpus === undefined ? {} : { testCorpora: [testCorpus] }),
  onProgress: (message, transient) => {
    sample();
    const max = process.resourceUsage().maxRSS * 1024;
    if (max > lastMax + 5 * 2 ** 20) {
      console.error(`  peak RSS ${mb(lastMax)} → ${mb(max)} MB between «${lastMessage}» and «${message}»`);
      lastMax = max;
    }
    lastMessage = message.slice(0, 120);
    const named = /^\[([^\]]+)\]/.exec(message);
    if (named !== null) stage = named[1];
    if (!transient) {
      if (process.env.GC === "1" && typeof globalThis.gc === "function") globalThis.gc();
      const m = process.memoryUsage();
      const at = ((performance.now() - started) / 1000).toFixed(0);
      console.error(`${at} s rss ${mb(m.rss)} heap ${mb(m.heapUsed)} ${message.slice(0, 160)}`);
    }
  },
});
clearInterval(timer);
sample();
for (const [name, p] of peaks)
  console.log(
    `${name.padEnd(20)} rss ${mb(p.rss).padStart(5)}  heap ${mb(p.heap).padStart(5)}  ` +
      `external ${mb(p.external).padStart(4)}  arrayBuffers ${mb(p.arrayBuffers).padStart(4)} MB`,
  );
console.log(
  `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB, ` +
    `${((performance.now() - started) / 1000).toFixed(0)} s`,
);
