// Benchmark: training students on 100k samples and predicting with one, reported as ratios
// to a reference measured in the same run: extracting the features of those 100k prefixes,
// and for the default student as seconds per 100k training samples (target ≤ 10 s, one core).
// The samples are SYNTHETIC (state-machine-valid random record streams, no Go programs):
// this measures speed, not accuracy. Usage (from the repository root):
//   npm run build && node bench/train.mjs
// or: npx tsc -p . --outDir /tmp/schedlab-dist && SCHEDLAB_DIST=/tmp/schedlab-dist node bench/train.mjs
// BENCH_SAMPLES (default 100000) and BENCH_EPOCHS (default 3) change the size.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const distRoot = process.env.SCHEDLAB_DIST
  ? pathToFileURL(`${process.env.SCHEDLAB_DIST}/`)
  : new URL("../dist/", import.meta.url);
const train = await import(new URL("train/index.js", distRoot).href);
const predict = await import(new URL("predict/index.js", distRoot).href);
const dataset = await import(new URL("dataset/index.js", distRoot).href);
const { seededRandom } = await import(new URL("random.js", distRoot).href);

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100_000);
const EPOCHS = Number(process.env.BENCH_EPOCHS ?? 3);
const EVENTS_PER_RUN = 1000;
const RUNS_PER_PROGRAM = 5;

/** A random but state-machine-valid record stream: the root creates workers that block, wake and end. */
function simulate(program, run) {
  const rand = seededRandom(program * 7919 + run * 104729 + 1);
  const workers = 2 + (program % 9);
  const reasons = ["chan receive", "chan send", "select", "sync", "sleep"];
  const state = new Map([[1, "running"]]);
  const records = [{ seq: 0, timeNs: 0, kind: "Initial", goroutine: 1, actor: null, reason: "Running", site: null }];
  let next = 2;
  let events = 0;
  let t = 0;
  const pick = (status) => [...state].filter(([, s]) => s === status).map(([g]) => g);
  const push = (kind, goroutine, actor, reason = "") => {
    t += 100 + Math.floor(rand() * 5000);
    records.push({ seq: records.length, timeNs: t, kind, goroutine, actor, reason, site: null });
    events++;
  };
  while (events < EVENTS_PER_RUN) {
    const running = pick("running");
    const runnable = pick("runnable");
    const waiting = pick("waiting");
    const r = rand();
    if (running.includes(1) && next <= workers + 1 && r < 0.3) {
      state.set(next, "runnable");
      push("GoCreate", next++, 1);
    } else if (runnable.length > 0 && running.length < 2 && r < 0.6) {
      const g = runnable[Math.floor(rand() * runnable.length)];
      state.set(g, "running");
      push("GoStart", g, null);
    } else if (running.length > 0 && r < 0.8) {
      const g = running[Math.floor(rand() * running.length)];
      const u = rand();
      if (g !== 1 && u < 0.04) {
        state.set(g, "ended");
        push("GoEnd", g, g);
      } else if (u < 0.12) {
        state.set(g, "runnable");
        push("GoSched", g, g, "runtime.Gosched");
      } else {
        state.set(g, "waiting");
        push("GoBlock", g, g, reasons[Math.floor(rand() * reasons.length)]);
      }
    } else if (waiting.length > 0) {
      const g = waiting[Math.floor(rand() * waiting.length)];
      state.set(g, "runnable");
      push("GoUnblock", g, running[0] ?? null);
    } else if (runnable.length > 0) {
      const g = runnable[0];
      state.set(g, "running");
      push("GoStart", g, null);
    } else {
      state.set(next, "runnable");
      push("GoCreate", next++, running[0] ?? 1);
    }
  }
  return records;
}

// One program is held out and a fifth of the rest validates, so scale up to keep SAMPLES training samples.
const programs = Math.max(4, Math.ceil(SAMPLES / (EVENTS_PER_RUN * RUNS_PER_PROGRAM) / 0.8) + 1);
const runs = [];
for (let p = 0; p < programs; p++) {
  for (let r = 0; r < RUNS_PER_PROGRAM; r++)
    runs.push({
      program: `synthetic/p${String(p).padStart(3, "0")}`,
      runId: p * 100 + r,
      procs: 2,
      records: simulate(p, r),
    });
}
const holdout = ["synthetic/p000"]; // one program held out, so about SAMPLES remain for training
// A fifth of the other programs validate (early stopping, calibration), the rest are fitted on.
const names = [...new Set(runs.map((r) => r.program))];
const validation = names.filter((p, i) => !holdout.includes(p) && i % 5 === 1);
const runsById = new Map(runs.map((r) => [r.runId, r]));
/** States and samples (with their prefixes) of some runs, as the dataset stage builds them. */
const statesAndSamples = (some) => {
  const { states, samples } = dataset.statesFromRuns(some, "depth");
  return { states, samples: dataset.samplesWithPrefixes({ samples, runs: runsById }) };
};
const side = (members) => ({
  programs: members,
  ...statesAndSamples(runs.filter((r) => members.includes(r.program))),
});
const studentData = {
  fit: side(names.filter((p) => !holdout.includes(p) && !validation.includes(p))),
  validation: side(validation),
  holdout: side(holdout),
  programDirs: new Map(),
};

function time(work) {
  const start = process.hrtime.bigint();
  const result = work();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}
async function timeAsync(work) {
  const start = process.hrtime.bigint();
  const result = await work();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}

const { states, samples } = statesAndSamples(runs);
const prefixes = samples.slice(0, SAMPLES).map((s) => s.prefix);
// Reference: features of every sample's prefix (one forward walk per run).
const reference = time(() => predict.featurizePrefixes(prefixes));
const perPrefixUs = (reference.ms * 1000) / prefixes.length;

const rows = [];
const scratch = mkdtempSync(join(tmpdir(), "schedlab-bench-train-"));
let adapterDir;
let fixedShareDir;
// The default student (what `schedlab run` selects: KL/MLP with the default options) runs
// DEFAULT_EPOCHS epochs: on the corpus at depth, early stopping ran 10 (best epoch 4). The
// target is ≤ 10 s per 100k training samples, everything included (features, fit, calibration).
const DEFAULT_EPOCHS = Number(process.env.BENCH_DEFAULT_EPOCHS ?? 10);
const recipes = [
  { what: "default student kl/mlp", objective: "kl", model: "mlp", epochs: DEFAULT_EPOCHS, target: true },
  {
    what: "kl/mlp --no-expert-evidence",
    objective: "kl",
    model: "mlp",
    epochs: DEFAULT_EPOCHS,
    expertEvidence: null,
    fixedShare: true,
  },
  {
    what: "kl/mlp --no-context-expert",
    objective: "kl",
    model: "mlp",
    epochs: DEFAULT_EPOCHS,
    contextExpert: false,
  },
  { what: "ce/logreg", objective: "ce", model: "logreg", epochs: EPOCHS },
  { what: "ce/mlp", objective: "ce", model: "mlp", epochs: EPOCHS },
];
for (const recipe of recipes) {
  const options = {
    ...train.DEFAULT_TRAIN_OPTIONS,
    objective: recipe.objective,
    model: recipe.model,
    abstraction: "depth",
    holdoutSpec: "synthetic",
    epochs: recipe.epochs,
    patience: recipe.epochs,
    ...(recipe.contextExpert === undefined ? {} : { contextExpert: recipe.contextExpert }),
    ...(recipe.expertEvidence === undefined ? {} : { expertEvidence: recipe.expertEvidence }),
  };
  const fit = await timeAsync(() => train.trainOnSplit("bench", studentData, options));
  const card = fit.result.card;
  rows.push({ ...recipe, ms: fit.ms, samples: card.data.trainSamples, trainRows: card.data.trainRows });
  if (recipe.target) {
    adapterDir = join(scratch, "default");
    train.saveAdapter(adapterDir, fit.result);
  }
  if (recipe.fixedShare) {
    fixedShareDir = join(scratch, "fixed-share");
    train.saveAdapter(fixedShareDir, fit.result);
  }
}
const batch = states.slice(0, 20_000);
const predicted = await timeAsync(async () => (await predict.loadStudentPredictor(adapterDir)).predict(batch));
// The same network with the expert's fixed share: what the evidence walk costs the predictor.
const predictedFixed = await timeAsync(async () => (await predict.loadStudentPredictor(fixedShareDir)).predict(batch));
rmSync(scratch, { recursive: true, force: true });

console.log(
  `samples: ${prefixes.length} (synthetic), ${runs.length} runs of ${programs} programs, ${predict.FEATURE_COUNT} features`,
);
console.log(
  `reference: feature extraction of ${prefixes.length} prefixes ${reference.ms.toFixed(0)} ms (${perPrefixUs.toFixed(2)} µs/prefix)`,
);
for (const row of rows) {
  const per100k = (row.ms / 1000) * (100_000 / row.samples);
  console.log(
    `train ${row.what}, ${row.epochs} epochs, ${row.samples} samples (${row.trainRows} ` +
      `rows): ${row.ms.toFixed(0)} ms = ${(row.ms / reference.ms).toFixed(1)}× feature extraction; ` +
      `${per100k.toFixed(1)} s per 100k samples${row.target ? ` (target ≤ 10 s: ${per100k <= 10 ? "met" : "NOT met"})` : ""}`,
  );
}
const statesPerSecond = (batch.length / predicted.ms) * 1000;
console.log(
  `predict (default student, features included): ${batch.length} states in ${predicted.ms.toFixed(0)} ms = ${statesPerSecond.toFixed(0)} states/s; ` +
    `${((predicted.ms * 1000) / batch.length / perPrefixUs).toFixed(2)}× the per-prefix feature time; ` +
    `${(predicted.ms / predictedFixed.ms).toFixed(2)}× the same network with the fixed share (${predictedFixed.ms.toFixed(0)} ms)`,
);
