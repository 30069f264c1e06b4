// Does a one-run observable carry the confidence a held-out set needs (issue 40, item 2)? For a
// saved student and a holdout, bins the validation states and the test states by one feature of
// the state's representative prefix (a column of the student's FEATURE_SPEC, e.g.
// ctx.selfHits.recent: how well the run's own counts predicted its last 32 events) and prints per
// bin the count-weighted confidence and accuracy of the student and of the in-context expert it
// mixes in (the ctx.mix.p.* columns), and the temperature on each final distribution that
// minimises the bin's NLL. If the validation and test bins want different temperatures, no
// calibration conditioned on that observable and fitted on validation families can calibrate the
// test set. With --fit F1,F2,…, also fits T(x) = exp(a + Σ b_i·z_i) over those standardised
// columns on the validation NLL (coordinate descent) and prints the test ECE and NLL before and
// after. Reads dist/: `npm run build` first.
// With --max-samples-per-program N, each side keeps at most N samples per program (evenly along
// its runs, as eval --max-samples-per-program does): needed on a corpus of real suites.
// Usage: node scripts/confidence-by-evidence.mjs DB HOLDOUT ABSTRACTION ADAPTER FEATURE [EDGE,EDGE,…] [--fit F1,F2,…]
//   [--max-samples-per-program N]

import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const { openExistingDatabase } = await import(`${dist}store/index.js`);
const { splitDataOf } = await import(`${dist}dataset/index.js`);
const student = await import(`${dist}predict/student/index.js`);
const { expectedCalibrationError } = await import(`${dist}metrics/index.js`);
const { EVENT_TYPES } = await import(`${dist}core/index.js`);

const argv = process.argv.slice(2);
const capAt = argv.indexOf("--max-samples-per-program");
const cap = capAt < 0 ? undefined : Number(argv[capAt + 1]);
const args = capAt < 0 ? argv : [...argv.slice(0, capAt), ...argv.slice(capAt + 2)];
const fitAt = args.indexOf("--fit");
const fitted = fitAt < 0 ? [] : args[fitAt + 1].split(",");
const [dbPath, holdout, abstraction, adapter, feature, edgeList] = fitAt < 0 ? args : args.slice(0, fitAt);
if (feature === undefined) {
  process.stderr.write(
    "usage: node scripts/confidence-by-evidence.mjs DB HOLDOUT ABSTRACTION ADAPTER FEATURE [EDGES] [--fit F1,F2,…]\n",
  );
  process.exit(2);
}
const edges = [-Infinity, ...(edgeList ?? "0.25,0.5,0.75,0.9,0.97").split(",").map(Number), Infinity];
const column = (name) => {
  const c = student.FEATURE_SPEC.names.indexOf(name);
  if (c < 0) throw new Error(`no feature column ${name}`);
  return c;
};
const K = EVENT_TYPES.length;
const expertAt = column(`ctx.mix.p.${EVENT_TYPES[0]}`);
const binColumn = column(feature);
const fitColumns = fitted.map(column);

const db = openExistingDatabase(dbPath);
const data = splitDataOf(db, { abstraction, holdout, ...(cap === undefined ? {} : { maxSamplesPerProgram: cap }) });
const predictor = await student.loadStudentPredictor(adapter);
const saved = student.loadAdapter(adapter);
const inputs = { staticOf: () => null, ngram: student.loadedNgram(saved.features.ngram) };

/** Per state: the student's distribution, the expert's, the observed counts and the chosen columns. */
async function rowsOf(states) {
  const rows = [];
  for (let i = 0; i < states.length; i += 2000) {
    const chunk = states.slice(i, i + 2000);
    const predictions = await predictor.predict(chunk);
    const { x } = student.featurizePrefixes(
      chunk.map((s) => s.representative),
      inputs,
    );
    chunk.forEach((s, j) => {
      const at = j * student.FEATURE_COUNT;
      const e = Array.from(x.subarray(at + expertAt, at + expertAt + K));
      const total = e.reduce((a, b) => a + b, 0);
      rows.push({
        q: predictions[j].probabilities,
        expert: total > 0 ? e.map((v) => v / total) : e.map(() => 1 / K),
        counts: EVENT_TYPES.map((event) => s.counts[event]),
        h: x[at + binColumn],
        f: fitColumns.map((c) => x[at + c]),
      });
    });
  }
  return rows;
}

function temper(q, t) {
  const w = q.map((p) => (p > 0 ? Math.exp(Math.log(p) / t) : 0));
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / total);
}

/** Count-weighted top-label confidence, accuracy and NLL of `pick(row)` tempered by `t(row)`. */
function score(rows, pick, t = () => 1) {
  let n = 0;
  let confidence = 0;
  let accuracy = 0;
  let nll = 0;
  for (const r of rows) {
    const q = temper(pick(r), t(r));
    let best = 0;
    for (let k = 1; k < K; k++) if (q[k] > q[best]) best = k;
    for (let k = 0; k < K; k++) {
      n += r.counts[k];
      if (r.counts[k] > 0) nll -= r.counts[k] * Math.log(Math.max(q[k], 1e-12));
    }
    const total = r.counts.reduce((a, b) => a + b, 0);
    confidence += total * q[best];
    accuracy += r.counts[best];
  }
  return { n, confidence: confidence / n, accuracy: accuracy / n, nll: nll / n };
}

/** Golden-section search of x in [lo, hi] minimising f. */
function golden(f, lo, hi, steps = 30) {
  for (let i = 0; i < steps; i++) {
    const a = lo + (hi - lo) * 0.382;
    const b = lo + (hi - lo) * 0.618;
    if (f(a) < f(b)) hi = b;
    else lo = a;
  }
  return (lo + hi) / 2;
}

const bestTemperature = (rows, pick) => Math.exp(golden((u) => score(rows, pick, () => Math.exp(u)).nll, -2.3, 2.3));

function ece(rows, t) {
  const probabilities = [];
  const observed = [];
  for (const r of rows) {
    const q = temper(r.q, t(r));
    r.counts.forEach((c, k) => {
      for (let j = 0; j < c; j++) {
        probabilities.push(q);
        observed.push(k);
      }
    });
  }
  return expectedCalibrationError(probabilities, observed);
}

const sides = [
  ["validation", await rowsOf(data.validation.states)],
  ["test", await rowsOf(data.test.states)],
];
const f3 = (v) => v.toFixed(3);
console.log(`${adapter}, ${abstraction}, holdout ${holdout}: bins of ${feature}`);
console.log("| side | bin | samples | student conf / acc | its best T | expert conf / acc | its best T |");
console.log("|---|---|---|---|---|---|---|");
for (const [name, rows] of sides) {
  for (let b = 0; b + 1 < edges.length; b++) {
    const bin = rows.filter((r) => r.h > edges[b] && r.h <= edges[b + 1]);
    if (bin.length === 0) continue;
    const s = score(bin, (r) => r.q);
    const e = score(bin, (r) => r.expert);
    console.log(
      `| ${name} | (${edges[b]}, ${edges[b + 1]}] | ${s.n} | ${f3(s.confidence)} / ${f3(s.accuracy)} | ` +
        `${bestTemperature(bin, (r) => r.q).toFixed(2)} | ${f3(e.confidence)} / ${f3(e.accuracy)} | ` +
        `${bestTemperature(bin, (r) => r.expert).toFixed(2)} |`,
    );
  }
  const s = score(rows, (r) => r.q);
  console.log(
    `| ${name} | all | ${s.n} | ${f3(s.confidence)} / ${f3(s.accuracy)} | ${bestTemperature(rows, (r) => r.q).toFixed(2)} | | |`,
  );
}

if (fitted.length > 0) {
  const validation = sides[0][1];
  const mean = fitted.map((_, i) => validation.reduce((a, r) => a + r.f[i], 0) / validation.length);
  const sd = fitted.map(
    (_, i) => Math.sqrt(validation.reduce((a, r) => a + (r.f[i] - mean[i]) ** 2, 0) / validation.length) || 1,
  );
  const temperatureOf = (w) => (r) =>
    Math.exp(w[0] + fitted.reduce((a, _, i) => a + (w[i + 1] * (r.f[i] - mean[i])) / sd[i], 0));
  const nll = (rows, w) => score(rows, (r) => r.q, temperatureOf(w)).nll;
  let w = new Array(fitted.length + 1).fill(0);
  for (let sweep = 0; sweep < 4; sweep++) {
    for (let i = 0; i < w.length; i++) {
      const at = (v) => w.map((x, j) => (j === i ? v : x));
      const candidate = at(golden((v) => nll(validation, at(v)), -2, 2, 25));
      if (nll(validation, candidate) < nll(validation, w)) w = candidate;
    }
  }
  const none = w.map(() => 0);
  console.log(
    `\nlog T = ${f3(w[0])} + (${w.slice(1).map(f3).join(", ")})·z over ${fitted.join(", ")} (z standardised on validation)`,
  );
  for (const [name, rows] of sides)
    console.log(
      `${name}: NLL ${nll(rows, none).toFixed(4)} → ${nll(rows, w).toFixed(4)}, ` +
        `ECE ${f3(ece(rows, temperatureOf(none)))} → ${f3(ece(rows, temperatureOf(w)))}`,
    );
}
db.close();
