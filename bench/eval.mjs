// Benchmark: evaluate() (every §8 metric plus bootstrap intervals and McNemar for every
// pair) on a synthetic test split of 20 000 states / 100 000 samples / 200 programs with
// three predictors, reported as a ratio to a reference measured in the same run: one pass
// that only computes each predictor's plain accuracy (argmax and compare per sample).
// Usage (from the repository root):
//   npx tsc -p . --outDir /tmp/schedlab-dist && SCHEDLAB_DIST=/tmp/schedlab-dist node bench/eval.mjs
// (without SCHEDLAB_DIST it imports ../dist, i.e. after `npm run build`).

import { pathToFileURL } from "node:url";

const distRoot = process.env.SCHEDLAB_DIST
  ? pathToFileURL(`${process.env.SCHEDLAB_DIST}/`)
  : new URL("../dist/", import.meta.url);
const { evaluate } = await import(new URL("eval/index.js", distRoot).href);

const { EVENT_TYPES } = await import(new URL("core/index.js", distRoot).href);
const STATES = Number(process.env.BENCH_STATES ?? 20000);
const SAMPLES_PER_STATE = 5;
const PROGRAMS = 200;
const PREDICTORS = 3;

/** Deterministic PRNG (mulberry32). */
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(7);
const states = [];
const samples = [];
for (let i = 0; i < STATES; i++) {
  const program = `p${i % PROGRAMS}`;
  const counts = Object.fromEntries(EVENT_TYPES.map((e) => [e, 0]));
  for (let k = 0; k < SAMPLES_PER_STATE; k++) {
    const next = EVENT_TYPES[Math.floor(random() * random() * EVENT_TYPES.length)];
    counts[next] += 1;
    samples.push({ stateId: `s${i}`, program, runId: k, end: 0, next });
  }
  states.push({
    id: `s${i}`,
    abstraction: "depth",
    program,
    key: `depth=${i}`,
    counts,
    runs: SAMPLES_PER_STATE,
    representative: { program, runId: 0, procs: 1, records: [], end: 0 },
  });
}
const outputs = Array.from({ length: PREDICTORS }, (_, j) => ({
  name: `synthetic-${j}`,
  configHash: String(j),
  predictions: states.map(() => {
    const w = EVENT_TYPES.map(() => random() + 0.01);
    const total = w.reduce((a, b) => a + b, 0);
    return { probabilities: w.map((x) => x / total) };
  }),
}));

function reference() {
  const index = new Map(states.map((s, i) => [s.id, i]));
  const accuracies = [];
  for (const o of outputs) {
    let hits = 0;
    for (const s of samples) {
      const q = o.predictions[index.get(s.stateId)].probabilities;
      let best = 0;
      for (let k = 1; k < 6; k++) if (q[k] > q[best]) best = k;
      if (EVENT_TYPES[best] === s.next) hits++;
    }
    accuracies.push(hits / samples.length);
  }
  return accuracies;
}

function time(work, repeats) {
  const start = process.hrtime.bigint();
  let result;
  for (let r = 0; r < repeats; r++) result = work();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6 / repeats, result };
}

time(reference, 1);
const ref = time(reference, 5);
const full = time(() => evaluate(states, samples, outputs, { abstraction: "depth", holdout: "bench" }), 3);
const accuracyMatches = full.result.predictors.every((p, j) => Math.abs(p.accuracy - ref.result[j]) < 1e-12);
console.log(
  `${STATES} states, ${samples.length} samples, ${PROGRAMS} programs, ${PREDICTORS} predictors (${(PREDICTORS * (PREDICTORS - 1)) / 2} comparisons)`,
);
console.log(`reference (accuracy only): ${ref.ms.toFixed(1)} ms`);
console.log(
  `evaluate (all metrics, 2000-resample bootstraps): ${full.ms.toFixed(1)} ms — ratio ${(full.ms / ref.ms).toFixed(1)}× the reference`,
);
console.log(`accuracies agree with the reference: ${accuracyMatches}`);
