// Benchmark: cross-validation's memory against the number of events (whatever reads a whole
// collection must stream: memory flat in the events). The peak RSS of `eval --cv 5` at depth on
// two synthetic collections of the same programs, the second with 4× the runs per program — 4× the
// events and samples, the same states — each measured in a process of its own. Prints both peaks
// and their ratio beside the events' ratio (the reference: what memory linear in the events would
// show); flat is a peak ratio near 1. Predictors: majority and ngram-ctx:4, both fitted on each
// fold's fit side, so the fit side's samples are read and the test side predicted without a
// cache; no student (its training holds its rows by design: docs/training.md). About 3 minutes on
// 2 cores. Usage (from the repository root):
//   npm run build && node bench/cv-flat.mjs
// BENCH_PROGRAMS (60), BENCH_FAMILIES (12), BENCH_RUNS (5) and BENCH_EVENTS (1000) resize it;
// `--seed DB RUNS` writes one collection, `--only DB` cross-validates one and prints its JSON line.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const distRoot = process.env.SCHEDLAB_DIST
  ? pathToFileURL(`${process.env.SCHEDLAB_DIST}/`)
  : new URL("../dist/", import.meta.url);
const load = (path) => import(new URL(path, distRoot).href);

const PROGRAMS = Number(process.env.BENCH_PROGRAMS ?? 60);
const FAMILIES = Number(process.env.BENCH_FAMILIES ?? 12);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const SCALE = 4;

const args = process.argv.slice(2);

if (args[0] === "--seed") {
  // One collection, its depth dataset stored, so the measured process only cross-validates.
  const { openDatabase, inTransaction } = await load("store/index.js");
  const { refreshDataset } = await load("dataset/index.js");
  const { seed } = await import(new URL("./synthetic.mjs", import.meta.url).href);
  const db = openDatabase(args[1]);
  seed(db, inTransaction, { programs: PROGRAMS, runs: Number(args[2]), events: EVENTS, families: FAMILIES });
  refreshDataset(db, { abstraction: "depth" });
  db.close();
} else if (args[0] === "--only") {
  const { openExistingDatabase } = await load("store/index.js");
  const { runCrossValidation } = await load("cv/index.js");
  const started = performance.now();
  const run = await runCrossValidation(openExistingDatabase(args[1]), {
    predictors: ["majority", "ngram-ctx:4"],
    abstractions: ["depth"],
    folds: 5,
    adapters: join(args[1], "..", "adapters"),
  });
  const scores = run.abstractions[0].scores;
  console.log(
    JSON.stringify({
      peakMb: process.resourceUsage().maxRSS / 1024,
      seconds: (performance.now() - started) / 1000,
      samples: scores.samples,
      states: scores.states,
      accuracy: scores.predictors.map((p) => p.accuracy.estimate),
    }),
  );
} else {
  const self = fileURLToPath(import.meta.url);
  const node = (...rest) => {
    const child = spawnSync(process.execPath, [self, ...rest], { encoding: "utf8", maxBuffer: 1 << 26 });
    if (child.status !== 0) throw new Error(`${rest.join(" ")} failed:\n${child.stderr}`);
    return child.stdout;
  };
  const dir = mkdtempSync(join(tmpdir(), "schedlab-bench-cv-flat-"));
  try {
    const results = [];
    for (const runs of [RUNS, RUNS * SCALE]) {
      const db = join(dir, `runs-${runs}`, "bench.db");
      spawnSync("mkdir", ["-p", join(dir, `runs-${runs}`)]);
      node("--seed", db, String(runs));
      results.push({ runs, ...JSON.parse(node("--only", db).trim().split("\n").at(-1)) });
    }
    const [small, large] = results;
    for (const r of results)
      console.log(
        `${PROGRAMS} programs × ${String(r.runs).padStart(2)} runs: ${r.samples} samples, ${r.states} states; ` +
          `eval --cv 5 at depth peaked at ${r.peakMb.toFixed(0)} MB in ${r.seconds.toFixed(1)} s`,
      );
    console.log(
      `events ${(large.samples / small.samples).toFixed(2)}× (reference: memory linear in the events), ` +
        `peak RSS ${(large.peakMb / small.peakMb).toFixed(2)}× (flat: near 1)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
