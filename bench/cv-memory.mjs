// Benchmark (issue 25): the memory of cross-validation's pooled scoring at the scale of `schedlab
// run`'s depth CV on the bundled corpus — 3 folds, 68 606 test states, 318 119 samples, 242
// programs in 41 families, 7 predictors, 1 000 bootstrap resamples — by the current implementation
// and by the REFERENCE below (poolFolds and crossValidationScores as they were before issue 25:
// every fold's states, samples and prediction objects kept until the end, then pooled into fresh
// object arrays), each in its own process, in the same run. Folds are made one at a time, as CV
// makes them; each fold's states carry representative prefixes into their runs' records (one
// record a sample, as in the real database), which is what a kept fold holds on to. The current
// implementation reduces each fold to typed columns (foldColumns) before the next is made.
// Prints each process's peak RSS and time, the ratio reference / current, and whether the two
// scoreboards are identical (they must be: the change moves data, not arithmetic; fields added or
// redefined since, SINCE below, are left out of the comparison). About a minute
// on 2 cores. Usage: npm run build && node bench/cv-memory.mjs
// `--only current|reference` runs one side in this process and prints its JSON line.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";

const FOLDS = 3;
const STATES = 68606;
const SAMPLES = 318119;
const PROGRAMS = 242;
const FAMILIES = 41;
const PREDICTORS = ["uniform", "majority", "ngram:3", "cal:ngram:3", "student:kl", "student:kl-tags", "ngram-ctx:4"];
const RESAMPLES = 1000;

const load = (path) => import(new URL(`../dist/${path}`, import.meta.url).href);
const { EVENT_TYPES } = await load("core/index.js");

/** Deterministic PRNG (mulberry32). */
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const familyOf = (program) => program.slice(0, program.lastIndexOf("/"));

/**
 * Fold f (0-based): the programs p ≡ f (mod FOLDS), their states and samples in equal shares, each
 * state seen in 1–9 runs of its program, and every predictor's noisy answer per state. A program
 * has 5 runs; each run's records are objects like decoded trace records (one per sample).
 */
function makeFold(f) {
  const random = prng(1000 + f);
  const programs = [];
  for (let p = f; p < PROGRAMS; p += FOLDS) programs.push(`family${p % FAMILIES}/p${p}`);
  const nStates = Math.round(STATES / FOLDS);
  const nSamples = Math.round(SAMPLES / FOLDS);
  const states = [];
  const samples = [];
  const runs = new Map();
  const runRecords = (program, run) => {
    const key = `${program}#${run}`;
    let records = runs.get(key);
    if (records === undefined) runs.set(key, (records = []));
    return records;
  };
  const perState = new Uint8Array(nStates).fill(1);
  for (let extra = nSamples - nStates; extra > 0;) {
    const i = Math.floor(random() * nStates);
    if (perState[i] < 9) {
      perState[i]++;
      extra--;
    }
  }
  const answers = PREDICTORS.map(() => []);
  for (let i = 0; i < nStates; i++) {
    const program = programs[Math.floor((i * programs.length) / nStates)];
    const w = EVENT_TYPES.map(() => random() ** 3);
    const tw = w.reduce((a, b) => a + b, 0);
    const counts = Object.fromEntries(EVENT_TYPES.map((e) => [e, 0]));
    for (let r = 0; r < perState[i]; r++) {
      let u = random() * tw;
      let k = 0;
      while (k < 5 && u >= w[k]) u -= w[k++];
      counts[EVENT_TYPES[k]]++;
      const run = r % 5;
      const records = runRecords(program, run);
      records.push({
        seq: records.length,
        timeNs: records.length * 1000,
        kind: EVENT_TYPES[k],
        goroutine: 1 + (i % 17),
        actor: null,
        reason: "",
        site: `main.worker${i % 13} ${program}/main.go:${i % 500}`,
        stack: `sync.(*Mutex).Lock;main.worker${i % 13} ${program}/main.go:${i % 500};main.main ${program}/main.go:${r}`,
      });
      samples.push({
        stateId: `s${i}`,
        program,
        runId: 5 * (f + FOLDS * i) + run,
        end: records.length - 1,
        next: EVENT_TYPES[k],
      });
    }
    const records = runRecords(program, 0);
    states.push({
      id: `s${i}`,
      abstraction: "depth",
      program,
      key: `depth=${i}`,
      counts,
      runs: Math.min(5, perState[i]),
      representative: { program, runId: 5 * (f + FOLDS * i), procs: 2, records, end: records.length },
      prefixHash: `h${f}-${i}`,
    });
    PREDICTORS.forEach((_, j) => {
      const q = w.map((x) => x + (0.02 + 0.02 * j) * random() + 0.001);
      const tq = q.reduce((a, b) => a + b, 0);
      answers[j].push({ probabilities: q.map((x) => x / tq) });
    });
  }
  return {
    fold: f + 1,
    states,
    samples,
    outputs: PREDICTORS.map((name, j) => ({ name, configHash: `${name}@${f}`, predictions: answers[j] })),
    thresholds: Object.fromEntries(PREDICTORS.map((name, j) => [name, 0.5 + 0.05 * j + 0.01 * f])),
  };
}

const scoreOptions = (folds) => ({
  abstraction: "depth",
  familyOf,
  majorityClass: "GoStart",
  folds,
  bootstrap: { resamples: RESAMPLES, seed: 1 },
});

async function current() {
  const { crossValidationScores, foldColumns, poolFolds } = await load("eval/cv.js");
  const columns = [];
  for (let f = 0; f < FOLDS; f++) columns.push(foldColumns(makeFold(f)));
  return crossValidationScores(poolFolds(columns), scoreOptions(FOLDS));
}

// ---------------------------------------------------------------------------------------------
// REFERENCE: poolFolds and crossValidationScores of src/eval/cv.ts before issue 25's memory
// work, compiled, verbatim but for the names (referencePoolFolds, referenceScores,
// referenceConformalScores). The metric functions they call are imported from dist unchanged.
// ---------------------------------------------------------------------------------------------
async function reference() {
  const { CONFORMAL_COVERAGE, CV_REFERENCE } = await load("eval/cv.js");
  const { ceilingAccuracy, leaveOneRunOutCeiling } = await load("dataset/ceiling.js");
  const { compare } = await load("eval/compare.js");
  const { EvaluationInputError } = await load("eval/errors.js");
  const { chooseClusters } = await load("eval/evaluate.js");
  const {
    accuracy,
    brierScore,
    classScores,
    clusterBootstrapMeanDifference,
    clusterBootstrapMeanDifferenceOfSums,
    confusionMatrix,
    expectedCalibrationError,
    expectedCalibrationErrorInterval,
    labelScore,
    macroF1,
    majorityAccuracy,
    negativeLogLikelihood,
    predictionSet,
    tieCredit,
  } = await load("metrics/index.js");

  function referencePoolFolds(folds) {
    const names = folds.length === 0 ? [] : folds[0].outputs.map((o) => o.name);
    const complete = names.filter((n) => folds.every((f) => f.outputs.some((o) => o.name === n)));
    const incomplete = [...new Set(folds.flatMap((f) => f.outputs.map((o) => o.name)))].filter(
      (n) => !complete.includes(n),
    );
    const states = [];
    const samples = [];
    const predictions = new Map(complete.map((n) => [n, []]));
    const hashes = new Map(complete.map((n) => [n, createHash("sha256")]));
    for (const fold of folds) {
      const prefix = `${fold.fold}:`;
      for (const s of fold.states) states.push({ ...s, id: prefix + s.id });
      for (const s of fold.samples) samples.push({ ...s, stateId: prefix + s.stateId });
      for (const name of complete) {
        const output = fold.outputs.find((o) => o.name === name);
        if (output.predictions.length !== fold.states.length)
          throw new RangeError(
            `poolFolds: ${name} gave ${output.predictions.length} predictions for ${fold.states.length} states in fold ${fold.fold}`,
          );
        predictions.get(name).push(...output.predictions);
        hashes.get(name).update(`${fold.fold}=${output.configHash};`);
      }
    }
    const outputs = complete.map((name) => ({
      name,
      configHash: hashes.get(name).digest("hex").slice(0, 16),
      predictions: predictions.get(name),
    }));
    const thresholds = new Map();
    for (const name of complete) {
      const t = folds.map((f) => f.thresholds?.[name]);
      if (t.every((x) => x !== undefined)) thresholds.set(name, t);
    }
    return { states, samples, outputs, incomplete, thresholds };
  }
  const sampleProgram = (s) => ("program" in s ? s.program : s.prefix.program);
  const sampleRun = (s) => ("runId" in s ? s.runId : s.prefix.runId);
  function referenceScores(pooled, options) {
    const reference = options.reference ?? CV_REFERENCE;
    const bootstrap = options.bootstrap ?? {};
    const index = new Map();
    pooled.states.forEach((s, i) => index.set(s.id, i));
    const stateOf = pooled.samples.map((s) => {
      const i = index.get(s.stateId);
      if (i === undefined)
        throw new EvaluationInputError(
          `sample of state ${s.stateId} has no matching state`,
          "Pool the states and samples of the same folds.",
        );
      return i;
    });
    const observed = pooled.samples.map((s) => EVENT_TYPES.indexOf(s.next));
    const programs = pooled.samples.map(sampleProgram);
    const { of: clusterOf, unit: clusterUnit } = chooseClusters(programs, options.familyOf);
    const clusters = programs.map(clusterOf);
    const majority = EVENT_TYPES.indexOf(options.majorityClass);
    const zeros = observed.map(() => 0);
    const foldRows = Array.from({ length: options.folds }, (_, f) =>
      options.foldOfSample.flatMap((g, i) => (g === f ? [i] : [])),
    );
    const clusterRows = new Map();
    clusters.forEach((c, i) => {
      const rows = clusterRows.get(c);
      if (rows === undefined) clusterRows.set(c, [i]);
      else rows.push(i);
    });
    const clusterNames = [...clusterRows.keys()].sort();
    const ceilingLoo = leaveOneRunOutCeiling(
      stateOf.map((state, i) => ({ state, run: sampleRun(pooled.samples[i]), observed: observed[i] })),
      EVENT_TYPES.length,
      majority,
    );
    const credits = new Map();
    const clusterMeans = new Map();
    const ones = new Float64Array(clusterNames.length).fill(1);
    const noClusterMean = new Float64Array(clusterNames.length);
    const predictors = pooled.outputs.map((output) => {
      const q = stateOf.map((i) => output.predictions[i].probabilities);
      const credit = q.map((p, i) => tieCredit(p, observed[i]));
      credits.set(output.name, credit);
      const nll = observed.map((y, i) => negativeLogLikelihood([q[i]], [y]));
      const scores = classScores(confusionMatrix(q, observed, EVENT_TYPES.length));
      const estimate = accuracy(q, observed);
      const byCluster = clusterNames.map((cluster) => {
        const rows = clusterRows.get(cluster);
        return { cluster, samples: rows.length, accuracy: rows.reduce((sum, i) => sum + credit[i], 0) / rows.length };
      });
      const clusterMean = Float64Array.from(byCluster, (c) => c.accuracy);
      clusterMeans.set(output.name, clusterMean);
      return {
        name: output.name,
        accuracy: clusterBootstrapMeanDifference(clusters, credit, zeros, bootstrap),
        clusterMeanAccuracy: clusterBootstrapMeanDifferenceOfSums(ones, clusterMean, noClusterMean, bootstrap),
        ece: {
          ...expectedCalibrationErrorInterval(clusters, q, observed, bootstrap),
          estimate: expectedCalibrationError(q, observed),
        },
        nll: clusterBootstrapMeanDifference(clusters, nll, zeros, bootstrap),
        brier: brierScore(q, observed),
        macroF1: macroF1(scores),
        recall: Object.fromEntries(EVENT_TYPES.map((e, k) => [e, scores[k].recall])),
        gapToCeilingLoo: ceilingLoo - estimate,
        shareOfCeilingLoo: estimate / ceilingLoo,
        foldAccuracy: foldRows.map((rows) =>
          accuracy(
            rows.map((i) => q[i]),
            rows.map((i) => observed[i]),
          ),
        ),
        clusterAccuracy: byCluster,
        conformal: referenceConformalScores(
          pooled.thresholds.get(output.name),
          q,
          observed,
          options.foldOfSample,
          clusters,
          zeros,
          bootstrap,
        ),
      };
    });
    const sampleScores = (name) => ({
      name,
      abstraction: options.abstraction,
      holdout: "cv",
      clusters,
      clusterUnit,
      // compare() has since needed each sample's program (for the program leads, compared below only where they existed).
      programs,
      credit: credits.get(name),
    });
    const againstReference = credits.has(reference)
      ? pooled.outputs
          .filter((o) => o.name !== reference)
          .map((o) => {
            const c = compare(sampleScores(o.name), sampleScores(reference), bootstrap);
            return {
              predictor: o.name,
              reference,
              difference: c.difference,
              p: c.clusterTest.pValue,
              clusterMeanDifference: clusterBootstrapMeanDifferenceOfSums(
                ones,
                clusterMeans.get(o.name),
                clusterMeans.get(reference),
                bootstrap,
              ),
            };
          })
      : [];
    return {
      clusterUnit,
      samples: observed.length,
      states: pooled.states.length,
      programs: new Set(programs).size,
      ceiling: ceilingAccuracy(pooled.states.map((s) => EVENT_TYPES.map((e) => s.counts[e]))),
      ceilingLoo,
      majority: majorityAccuracy(observed, majority),
      majorityClass: options.majorityClass,
      predictors,
      againstReference,
    };
  }
  function referenceConformalScores(thresholds, q, observed, foldOfSample, clusters, zeros, bootstrap) {
    if (thresholds === undefined) return null;
    const covered = q.map((p, i) => (labelScore(p, observed[i]) <= thresholds[foldOfSample[i]] ? 1 : 0));
    const size = q.map((p, i) => predictionSet(p, thresholds[foldOfSample[i]]).length);
    return {
      target: CONFORMAL_COVERAGE,
      coverage: clusterBootstrapMeanDifference(clusters, covered, zeros, bootstrap),
      setSize: clusterBootstrapMeanDifference(clusters, size, zeros, bootstrap),
      foldThresholds: thresholds,
    };
  }

  const folds = [];
  for (let f = 0; f < FOLDS; f++) folds.push(makeFold(f));
  return referenceScores(referencePoolFolds(folds), {
    ...scoreOptions(FOLDS),
    foldOfSample: folds.flatMap((fold, i) => fold.samples.map(() => i)),
  });
}

/**
 * Fields the current scoreboard has gained or redefined since the reference (mean confidence −
 * accuracy, the program leads, everything on the runs a prefix was not read from, and the gap to
 * the leave-one-run-out ceiling, now taken on those runs): left out of both sides' hashes, so the
 * check covers every number the two compute alike.
 */
const SINCE = new Set([
  "overconfidence",
  "programLeads",
  "otherRunsAccuracy",
  "otherRunsEce",
  "otherRunsOverconfidence",
  "otherRunsNll",
  "gapToCeilingLoo",
  "shareOfCeilingLoo",
]);
const comparable = (scores) => JSON.stringify(scores, (key, value) => (SINCE.has(key) ? undefined : value));

const only = process.argv.indexOf("--only");
if (only !== -1) {
  const side = process.argv[only + 1];
  const started = performance.now();
  const scores = side === "reference" ? await reference() : await current();
  const seconds = (performance.now() - started) / 1000;
  const hash = createHash("sha256").update(comparable(scores)).digest("hex");
  const peakMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ side, seconds, peakMb, hash, accuracy: scores.predictors[0].accuracy })}\n`);
  process.exit(0);
}

const run = (side) => {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--only", side], { encoding: "utf8" });
  if (child.status !== 0) throw new Error(`${side} failed:\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1));
};
const ref = run("reference");
const cur = run("current");
console.log(
  `CV pooled scoring: ${FOLDS} folds, ${STATES} states, ${SAMPLES} samples, ${PROGRAMS} programs, ` +
    `${PREDICTORS.length} predictors, ${RESAMPLES} resamples`,
);
for (const r of [ref, cur])
  console.log(`  ${r.side.padEnd(10)} peak RSS ${r.peakMb.toFixed(0).padStart(5)} MB   ${r.seconds.toFixed(1)} s`);
console.log(`peak RSS reference / current (same run): ${(ref.peakMb / cur.peakMb).toFixed(2)}×`);
console.log(`scoreboards identical: ${ref.hash === cur.hash ? "yes" : "NO"}`);
if (ref.hash !== cur.hash) process.exit(1);
