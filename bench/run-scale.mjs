// Benchmark (issue 25): `schedlab run --test-corpus DIR` on the bundled corpus plus EXTRA programs
// of a test corpus, from nothing (fresh database, traces and adapters; the Go build cache as it
// is), in a process of its own. The extra programs are written by `schedlab corpus generate`
// with a seed far from the bundled corpus's, so they are new programs (of the same templates:
// this measures speed and memory, not generalisation).
//   reference: the same run's collect stage — building and running every program under the
//              tracer, the floor any pipeline over these programs pays;
//   measured:  the whole run (collect, ingest, distributions, train, eval, cross-validation,
//              leaks, rollouts, report, test-corpus evaluation) and the peak RSS of its process
//              (getrusage; the traced Go programs are processes of their own).
// Prints the wall time and peak RSS against issue 25's targets (≤ 10 min, ≤ 600 MB on 2 cores),
// every stage's time and the ratio whole run / collect.
// Usage: npm run build && node bench/run-scale.mjs [EXTRA]   (default 100; about 10 minutes)
// BENCH_DIR=DIR keeps the run's files there.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const TARGET_SECONDS = 600;
const TARGET_MB = 600;
const root = fileURLToPath(new URL("..", import.meta.url));

if (process.argv[2] === "--child") {
  // The measured process: the pipeline in-process, so getrusage's peak RSS is the pipeline's.
  const dir = process.argv[3];
  const { runPipeline } = await import("../dist/run/index.js");
  const started = performance.now();
  const summary = await runPipeline({
    corpus: join(root, "go-programs"),
    testCorpora: [join(dir, "extra")],
    db: join(dir, "schedlab.db"),
    out: join(dir, "report"),
    adapters: join(dir, "adapters"),
    traces: join(dir, "traces"),
  });
  const seconds = (performance.now() - started) / 1000;
  const peakMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    JSON.stringify({
      seconds,
      peakMb,
      stages: summary.stages.map((s) => ({ stage: s.stage, status: s.status, seconds: s.elapsedMs / 1000 })),
    }) + "\n",
  );
  process.exit(0);
}

const extra = Number(process.argv[2] ?? 100);
const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "schedlab-bench-run-scale-"));
mkdirSync(dir, { recursive: true });
const bin = join(root, "bin", "schedlab.js");
const generated = spawnSync(
  process.execPath,
  [bin, "corpus", "generate", "--seed", "90001", "--count", String(extra), "--out", join(dir, "extra")],
  { encoding: "utf8" },
);
if (generated.status !== 0) throw new Error(`corpus generate failed:\n${generated.stderr}`);

const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", dir], {
  cwd: dir,
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
  maxBuffer: 1 << 26,
});
if (child.status !== 0) throw new Error(`the measured run failed (exit ${child.status})`);
const result = JSON.parse(child.stdout.trim().split("\n").at(-1));
const collect = result.stages.find((s) => s.stage === "collect");

console.log(`run --test-corpus: bundled corpus + ${extra} extra programs, 2 cores expected`);
for (const s of result.stages) console.log(`  ${s.stage.padEnd(22)} ${s.status.padEnd(8)} ${s.seconds.toFixed(1)} s`);
const min = (s) => `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
console.log(
  `whole run: ${min(result.seconds)} (target ≤ ${TARGET_SECONDS / 60} min: ${result.seconds <= TARGET_SECONDS ? "met" : "MISSED"})`,
);
console.log(
  `peak RSS: ${result.peakMb.toFixed(0)} MB (target ≤ ${TARGET_MB} MB: ${result.peakMb <= TARGET_MB ? "met" : "MISSED"})`,
);
if (collect !== undefined)
  console.log(
    `ratio whole run / collect stage (reference, same run): ${(result.seconds / collect.seconds).toFixed(2)}×`,
  );
if (process.env.BENCH_DIR === undefined) rmSync(dir, { recursive: true, force: true });
