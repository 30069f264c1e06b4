// Benchmark (issue 25): evaluate() of ONE predictor at the scale of a real cross-corpus test set
// — 70 000 states, 200 000 samples, 103 programs, 1 000 bootstrap resamples — by the current
// implementation and by the REFERENCE below (evaluate and clusterSpearman as they were before
// issue 25: object arrays, one pass per metric, a Spearman bootstrap that re-sorts every
// resample), each in its own process, in the same run. Prints the time of each, their ratio, the
// peak RSS of each process and whether the two results are identical (they must be: the speed-up
// changes no number). About 7 minutes on 2 cores, nearly all of it the reference. Usage (from the
// repository root):
//   npm run build && node bench/eval-scale.mjs
// SCHEDLAB_DIST=DIR imports another build (DIR must resolve node_modules, e.g. a folder inside the
// repository). BENCH_STATES, BENCH_SAMPLES, BENCH_PROGRAMS and BENCH_RESAMPLES resize it;
// `--only current|reference` runs one side in this process and prints its JSON line.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath, pathToFileURL } from "node:url";

const distRoot = process.env.SCHEDLAB_DIST
  ? pathToFileURL(`${process.env.SCHEDLAB_DIST}/`)
  : new URL("../dist/", import.meta.url);
const load = (path) => import(new URL(path, distRoot).href);
const { EVENT_TYPES } = await load("core/index.js");

const STATES = Number(process.env.BENCH_STATES ?? 70000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200000);
const PROGRAMS = Number(process.env.BENCH_PROGRAMS ?? 103);
const RESAMPLES = Number(process.env.BENCH_RESAMPLES ?? 1000);

/** Deterministic PRNG (mulberry32). */
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The synthetic test split: states spread over PROGRAMS programs (each its own cluster, as a
 * flat tree of kernels is), each state seen in 1–5 runs (SAMPLES in all), its next events drawn
 * from a skewed distribution, and one predictor (a "cached student") that predicts a noisy copy
 * of that distribution, so its entropy correlates with the empirical one but not perfectly.
 */
function generate() {
  const random = prng(7);
  const runsOf = new Uint8Array(STATES).fill(1);
  for (let extra = SAMPLES - STATES; extra > 0;) {
    const i = Math.floor(random() * STATES);
    if (runsOf[i] < 5) {
      runsOf[i]++;
      extra--;
    }
  }
  const states = [];
  const samples = [];
  const predictions = [];
  for (let i = 0; i < STATES; i++) {
    const program = `kernels/p${Math.floor((i * PROGRAMS) / STATES)}`;
    const w = EVENT_TYPES.map(() => random() ** 3);
    const tw = w.reduce((a, b) => a + b, 0);
    const counts = Object.fromEntries(EVENT_TYPES.map((e) => [e, 0]));
    for (let r = 0; r < runsOf[i]; r++) {
      let u = random() * tw;
      let k = 0;
      while (k < 5 && u >= w[k]) u -= w[k++];
      counts[EVENT_TYPES[k]]++;
      samples.push({
        stateId: `s${i}`,
        program,
        runId: 5 * Math.floor((i * PROGRAMS) / STATES) + r,
        end: 0,
        next: EVENT_TYPES[k],
      });
    }
    const representative = { program, runId: 0, procs: 1, records: [], end: 0 };
    states.push({
      id: `s${i}`,
      abstraction: "depth",
      program,
      key: `depth=${i}`,
      counts,
      runs: runsOf[i],
      representative,
      prefixHash: `h${i}`,
    });
    const q = w.map((x) => x + 0.05 * random() + 0.01);
    const tq = q.reduce((a, b) => a + b, 0);
    predictions.push({ probabilities: q.map((x) => x / tq) });
  }
  return { states, samples, outputs: [{ name: "student", configHash: "bench", predictions }] };
}

// ---------------------------------------------------------------------------------------------
// REFERENCE: src/eval/evaluate.ts and src/metrics/clusterCorrelation.ts before issue 25,
// compiled, verbatim but for the names (referenceEvaluate, referenceClusterSpearman,
// referenceMidranks). The array-in metric functions they call are imported from dist: issue 25
// left their arithmetic unchanged.
// ---------------------------------------------------------------------------------------------
const { sampleCorrelation } = await import("simple-statistics");
const { ceilingAccuracy, leaveOneRunOutCeiling, seenOnceShare } = await load("dataset/ceiling.js");
const { compare } = await load("eval/compare.js");
const { EvaluationInputError } = await load("eval/errors.js");
const {
  accuracy,
  brierScore,
  classScores,
  clusterBootstrapMeanDifference,
  clusterBootstrapStatistic,
  clusterIndex,
  confusionMatrix,
  DEFAULT_RESAMPLES,
  empiricalDistribution,
  entropy,
  expectedCalibrationError,
  expectedCalibrationErrorInterval,
  klDivergence,
  l1Distance,
  macroF1,
  majorityAccuracy,
  majorityLabel,
  modeAccuracy,
  negativeLogLikelihood,
  pearson,
  reliabilityBins,
  spearman,
  tieCredit,
} = await load("metrics/index.js");
const { seededRandom } = await load("random.js");

function referenceMidranks(xs) {
  const order = xs.map((_, i) => i).sort((i, j) => xs[i] - xs[j]);
  const ranks = new Float64Array(xs.length);
  for (let start = 0; start < order.length;) {
    let stop = start + 1;
    while (stop < order.length && xs[order[stop]] === xs[order[start]]) stop++;
    const rank = (start + stop + 1) / 2;
    for (let k = start; k < stop; k++) ranks[order[k]] = rank;
    start = stop;
  }
  return ranks;
}
/**
 * Spearman's ρ between x and y with a within-cluster permutation p-value and a cluster
 * bootstrap interval, both from `resamples` seeded draws. Permuting within clusters tests
 * whether x and y move together inside families, which is what a predictor's entropy must do
 * to track real nondeterminism; resampling whole clusters gives the interval.
 *
 * @param groups cluster key per item
 * @example clusterSpearman(["a", "a", "b", "b"], [1, 2, 3, 4], [1, 2, 3, 4]).rho // => 1
 */
function referenceClusterSpearman(groups, x, y, options = {}) {
  if (groups.length !== x.length || x.length !== y.length)
    throw new RangeError("clusterSpearman: arrays differ in length");
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? 1;
  const rho = spearman(x, y).r;
  const { clusterOf, sizes } = clusterIndex(groups);
  const interval = clusterBootstrapStatistic(
    groups,
    (indices) =>
      spearman(
        indices.map((i) => x[i]),
        indices.map((i) => y[i]),
      ).r,
    { resamples, seed },
  );
  if (!Number.isFinite(rho)) return { rho, pValue: NaN, interval, clusters: sizes.length, n: x.length };
  const rx = referenceMidranks(x);
  const ry = Array.from(referenceMidranks(y));
  const members = sizes.map(() => []);
  clusterOf.forEach((g, i) => members[g].push(i));
  const random = seededRandom(seed);
  const permuted = new Array(x.length);
  let hits = 0;
  for (let r = 0; r < resamples; r++) {
    for (const items of members) {
      // Fisher–Yates over the cluster's ranks, written into the cluster's own positions.
      const values = items.map((i) => rx[i]);
      for (let k = values.length - 1; k > 0; k--) {
        const j = Math.floor(random() * (k + 1));
        const t = values[k];
        values[k] = values[j];
        values[j] = t;
      }
      items.forEach((i, k) => (permuted[i] = values[k]));
    }
    if (Math.abs(sampleCorrelation(permuted, ry)) >= Math.abs(rho) * (1 - 1e-12)) hits++;
  }
  return { rho, pValue: (1 + hits) / (1 + resamples), interval, clusters: sizes.length, n: x.length };
}

/** States need at least this many samples to enter the entropy correlation: one run always has entropy 0. */
const MIN_SAMPLES_FOR_ENTROPY = 2;
/** Intervals and tests resample families when the test samples span at least this many, else programs. */
const MIN_FAMILY_CLUSTERS = 5;
const PROBABILITY_SUM_TOLERANCE = 1e-6;
const eventIndex = (event) => EVENT_TYPES.indexOf(event);
const sampleProgram = (s) => ("program" in s ? s.program : s.prefix.program);
const sampleRun = (s) => ("runId" in s ? s.runId : s.prefix.runId);
const countsVector = (state) => EVENT_TYPES.map((e) => state.counts[e]);
const total = (xs) => xs.reduce((s, x) => s + x, 0);
const mean = (xs) => (xs.length === 0 ? NaN : total(xs) / xs.length);
/**
 * Families when the samples span at least MIN_FAMILY_CLUSTERS of them (samples of one family
 * share a template or category, so they are not independent), else programs: with two or
 * three families a bootstrap interval or permutation test is meaningless.
 */
function chooseClusters(programs, familyOf) {
  const distinct = [...new Set(programs)];
  if (familyOf !== undefined) {
    const families = new Set(distinct.map(familyOf)).size;
    if (families >= MIN_FAMILY_CLUSTERS) return { of: familyOf, unit: { unit: "family", clusters: families } };
  }
  return { of: (program) => program, unit: { unit: "program", clusters: distinct.length } };
}
function resolveSamples(states, samples, familyOf) {
  const index = new Map();
  states.forEach((s, i) => {
    if (!index.has(s.id)) index.set(s.id, i);
  });
  const stateIndex = [];
  const observed = [];
  const runs = [];
  const programs = [];
  for (const sample of samples) {
    const i = index.get(sample.stateId);
    if (i === undefined) {
      throw new EvaluationInputError(
        `sample of state ${sample.stateId} (program ${sampleProgram(sample)}) has no matching state`,
        "Pass the states and samples of the same dataset build (same abstraction and holdout split).",
      );
    }
    const k = eventIndex(sample.next);
    if (k < 0) {
      throw new EvaluationInputError(
        `sample of state ${sample.stateId} has unknown next event "${sample.next}"`,
        "Rebuild the dataset.",
      );
    }
    stateIndex.push(i);
    observed.push(k);
    runs.push(sampleRun(sample));
    programs.push(sampleProgram(sample));
  }
  const clusters = chooseClusters(programs, familyOf);
  return {
    stateIndex,
    observed,
    runs,
    programs,
    clusters: programs.map(clusters.of),
    clusterUnit: clusters.unit,
    stateClusters: states.map((s) => clusters.of(s.program)),
  };
}
function checkOutput(states, output) {
  if (output.predictions.length !== states.length) {
    throw new EvaluationInputError(
      `predictor ${output.name} gave ${output.predictions.length} predictions for ${states.length} states`,
      "Predictions must be aligned with the states, one per state in the same order.",
    );
  }
  output.predictions.forEach((p, i) => {
    const q = p.probabilities;
    const valid =
      q.length === EVENT_TYPES.length &&
      q.every((x) => Number.isFinite(x) && x >= 0) &&
      Math.abs(total(q) - 1) <= PROBABILITY_SUM_TOLERANCE;
    if (!valid) {
      throw new EvaluationInputError(
        `predictor ${output.name} gave an invalid distribution for state ${states[i].id}: [${q.join(", ")}]`,
        "Each prediction must be six finite non-negative probabilities in EVENT_TYPES order summing to 1.",
      );
    }
  });
}
function perEventScores(confusion) {
  const scores = classScores(confusion);
  return Object.fromEntries(
    EVENT_TYPES.map((e, k) => {
      const { precision, recall, f1, support, predicted } = scores[k];
      return [e, { precision, recall, f1, support, predicted }];
    }),
  );
}
/** The ceilings of the evaluated states: the same for every predictor. */
function ceilings(states, table, fallback) {
  const counts = states.map(countsVector);
  return {
    ceiling: ceilingAccuracy(counts),
    ceilingLoo: leaveOneRunOutCeiling(
      table.stateIndex.map((state, i) => ({ state, run: table.runs[i], observed: table.observed[i] })),
      EVENT_TYPES.length,
      fallback,
    ),
    seenOnce: seenOnceShare(counts),
  };
}
function distributionMetrics(states, output, table, resamples, seed) {
  const kl = [];
  const l1 = [];
  const points = [];
  const pointClusters = [];
  const modePredicted = [];
  const modeCounts = [];
  states.forEach((state, i) => {
    const counts = countsVector(state);
    const n = total(counts);
    if (n === 0) return;
    const q = output.predictions[i].probabilities;
    const p = empiricalDistribution(counts);
    kl.push(klDivergence(p, q));
    l1.push(l1Distance(p, q));
    modePredicted.push(q);
    modeCounts.push(counts);
    if (n >= MIN_SAMPLES_FOR_ENTROPY) {
      points.push({ predicted: entropy(q), empirical: entropy(p) });
      pointClusters.push(table.stateClusters[i]);
    }
  });
  const predictedH = points.map((pt) => pt.predicted);
  const empiricalH = points.map((pt) => pt.empirical);
  return {
    modeAccuracy: modeAccuracy(modePredicted, modeCounts),
    kl: mean(kl),
    l1: mean(l1),
    points,
    rho: referenceClusterSpearman(pointClusters, predictedH, empiricalH, { resamples, seed }),
    rhoIndependent: spearman(predictedH, empiricalH),
    r: pearson(predictedH, empiricalH),
    meanPredictedEntropy: mean(predictedH),
    meanEmpiricalEntropy: mean(empiricalH),
  };
}
function scorePredictor(states, table, output, context, majority, bounds) {
  checkOutput(states, output);
  const probabilities = table.stateIndex.map((i) => output.predictions[i].probabilities);
  const credit = probabilities.map((q, i) => tieCredit(q, table.observed[i]));
  const confusion = confusionMatrix(probabilities, table.observed, EVENT_TYPES.length);
  const perEvent = perEventScores(confusion);
  const dist = distributionMetrics(states, output, table, context.bootstrapResamples, context.bootstrapSeed);
  // Both intervals use the same seed and clusters, hence the same resamples.
  const bootstrap = { resamples: context.bootstrapResamples, seed: context.bootstrapSeed };
  const evaluation = {
    name: output.name,
    configHash: output.configHash,
    abstraction: context.abstraction,
    holdout: context.holdout,
    states: states.length,
    samples: table.observed.length,
    programs: new Set(table.programs).size,
    clusterUnit: table.clusterUnit,
    accuracy: accuracy(probabilities, table.observed),
    accuracyInterval: clusterBootstrapMeanDifference(
      table.clusters,
      credit,
      credit.map(() => 0),
      bootstrap,
    ),
    modeAccuracy: dist.modeAccuracy,
    ceiling: bounds.ceiling,
    ceilingLoo: bounds.ceilingLoo,
    seenOnce: bounds.seenOnce,
    majority: majorityAccuracy(table.observed, majority.label),
    majorityClass: EVENT_TYPES[majority.label],
    majoritySource: majority.source,
    macroF1: macroF1(Object.values(perEvent)),
    perEvent,
    confusion,
    ece: expectedCalibrationError(probabilities, table.observed),
    eceInterval: expectedCalibrationErrorInterval(table.clusters, probabilities, table.observed, bootstrap),
    reliability: reliabilityBins(probabilities, table.observed),
    brier: brierScore(probabilities, table.observed),
    nll: negativeLogLikelihood(probabilities, table.observed),
    kl: dist.kl,
    l1: dist.l1,
    entropySpearman: dist.rho.rho,
    entropySpearmanP: dist.rho.pValue,
    entropySpearmanInterval: dist.rho.interval,
    entropySpearmanPIndependent: dist.rhoIndependent.pValue,
    entropyPearson: dist.r.r,
    entropyPearsonPIndependent: dist.r.pValue,
    entropyStates: dist.points.length,
    meanPredictedEntropy: dist.meanPredictedEntropy,
    meanEmpiricalEntropy: dist.meanEmpiricalEntropy,
    entropyPoints: dist.points,
  };
  const scores = {
    name: output.name,
    abstraction: context.abstraction,
    holdout: context.holdout,
    clusters: table.clusters,
    clusterUnit: table.clusterUnit,
    credit,
  };
  return { evaluation, scores };
}
/**
 * Scores each predictor on `states` (distribution metrics: mode accuracy, KL, L1,
 * entropy correlation) and on `samples` (label metrics: accuracy, P/R/F1, confusion,
 * ECE, Brier, NLL), then compares every pair. `outputs[i].predictions` must be aligned
 * with `states`; every sample's stateId must be one of `states`.
 *
 * Aggregation: label metrics weight every sample once; distribution metrics weight
 * every state with at least one sample once; the entropy correlation uses states with
 * at least MIN_SAMPLES_FOR_ENTROPY samples.
 */
function referenceEvaluate(states, samples, outputs, context) {
  const table = resolveSamples(states, samples, context.familyOf);
  const majority =
    context.majorityClass !== undefined
      ? { label: eventIndex(context.majorityClass), source: "train" }
      : { label: majorityLabel(table.observed, EVENT_TYPES.length), source: "test" };
  const bounds = ceilings(states, table, majority.label);
  const scored = outputs.map((o) => scorePredictor(states, table, o, context, majority, bounds));
  const comparisons = [];
  for (let i = 0; i < scored.length; i++) {
    for (let j = i + 1; j < scored.length; j++) {
      comparisons.push(
        compare(scored[i].scores, scored[j].scores, {
          resamples: context.bootstrapResamples,
          seed: context.bootstrapSeed,
        }),
      );
    }
  }
  return {
    abstraction: context.abstraction,
    holdout: context.holdout,
    predictors: scored.map((s) => s.evaluation),
    comparisons,
  };
}

// ---------------------------------------------------------------------------------------------
// END OF REFERENCE
// ---------------------------------------------------------------------------------------------

/** Runs one implementation on a freshly generated input in this process; prints one JSON line. */
async function runOne(which) {
  const { evaluate } = await load("eval/evaluate.js");
  const input = generate();
  const inputRss = process.memoryUsage().rss;
  const implementation = which === "reference" ? referenceEvaluate : evaluate;
  const start = process.hrtime.bigint();
  const result = implementation(input.states, input.samples, input.outputs, {
    abstraction: "depth",
    holdout: "bench",
    bootstrapResamples: RESAMPLES,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const p = result.predictors[0];
  // The fields added since (issue 25's brierInterval and nllInterval, the accuracy program by program,
  // everything on the runs a prefix was not read from, the comparisons' program leads) are left out,
  // so both sides hash the same fields.
  const SINCE = new Set([
    "brierInterval",
    "nllInterval",
    "programAccuracy",
    "programLeads",
    "otherRunsAccuracy",
    "otherRunsAccuracyInterval",
    "otherRunsSamples",
    "otherRunsEce",
    "otherRunsNll",
  ]);
  const comparable = JSON.stringify(result, (key, value) => (SINCE.has(key) ? undefined : value));
  const digest = createHash("sha256").update(comparable).digest("hex").slice(0, 16);
  const summary = {
    accuracy: p.accuracy,
    ece: p.ece,
    rho: p.entropySpearman,
    rhoInterval: [p.entropySpearmanInterval.lower, p.entropySpearmanInterval.upper],
    rhoP: p.entropySpearmanP,
  };
  const mb = (bytes) => Math.round(bytes / 1048576);
  console.log(
    JSON.stringify({
      which,
      ms,
      inputRssMB: mb(inputRss),
      peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
      states: p.states,
      samples: p.samples,
      entropyStates: p.entropyStates,
      digest,
      summary,
    }),
  );
}

const only = process.argv.indexOf("--only");
if (only >= 0) {
  await runOne(process.argv[only + 1]);
} else {
  const child = (which) => {
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--only", which], {
      encoding: "utf8",
      env: process.env,
      maxBuffer: 1 << 24,
    });
    if (run.status !== 0) throw new Error(`${which} failed: ${run.stderr}`);
    return JSON.parse(run.stdout.trim().split("\n").at(-1));
  };
  const current = child("current");
  const reference = child("reference");
  console.log(
    `${current.states} states, ${current.samples} samples, ${PROGRAMS} programs (clusters), ` +
      `1 predictor, ${current.entropyStates} states in the entropy correlation, ${RESAMPLES} resamples`,
  );
  for (const r of [reference, current]) {
    console.log(
      `${r.which.padEnd(9)}: ${(r.ms / 1000).toFixed(2)} s, peak RSS ${r.peakRssMB} MB (the input alone ${r.inputRssMB} MB)`,
    );
  }
  console.log(
    `ratio reference / current: ${(reference.ms / current.ms).toFixed(1)}× faster; peak RSS ${reference.peakRssMB} → ${current.peakRssMB} MB`,
  );
  console.log(
    `results identical (sha256 of the whole result JSON but the fields added since): ${current.digest === reference.digest} (${current.digest})`,
  );
  console.log(
    `accuracy ${current.summary.accuracy}, ECE ${current.summary.ece.toFixed(4)}, ` +
      `ρ ${current.summary.rho.toFixed(4)} ` +
      `[${current.summary.rhoInterval.map((v) => v.toFixed(4)).join(", ")}], ` +
      `p ${current.summary.rhoP.toFixed(4)}`,
  );
}
