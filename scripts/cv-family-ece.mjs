// Per-family calibration under leave-family-out CV (issue 40): rescores the fold students that
// `schedlab eval --cv K --adapters DIR` left under DIR/cv/HASH/fold-i/RECIPE on their own fold's
// test families, beside `ngram-ctx:4`, and prints per family the ECE (15 bins over samples), the
// mean confidence − accuracy, and a floor — the ECE the same predictor would show were it
// calibrated (each outcome drawn from its own q, mean of 5 draws), i.e. what a family of that
// size shows from sampling alone. Ends with the family means and the families where each student
// is less calibrated than the in-context n-gram. Reads dist/: `npm run build` first.
// Usage: node scripts/cv-family-ece.mjs DB DIR/cv/HASH RECIPE…   (the HASH folder's folds.json names the abstraction)

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const { openExistingDatabase } = await import(`${dist}store/index.js`);
const { samplesWithPrefixes, splitDataOf } = await import(`${dist}dataset/index.js`);
const { createPredictor } = await import(`${dist}predict/index.js`);
const { expectedCalibrationError } = await import(`${dist}metrics/index.js`);
const { EVENT_TYPES } = await import(`${dist}core/index.js`);

const [dbPath, foldsDir, ...recipes] = process.argv.slice(2);
if (recipes.length === 0) {
  process.stderr.write("usage: node scripts/cv-family-ece.mjs DB DIR/cv/HASH RECIPE…\n");
  process.exit(2);
}
const { abstraction, folds } = JSON.parse(readFileSync(join(foldsDir, "folds.json"), "utf8"));
const db = openExistingDatabase(dbPath);
const K = EVENT_TYPES.length;

/** A fixed linear congruential generator, so the floor is the same on every run. */
function generator(seed) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** ECE, confidence − accuracy and the floor of one predictor's distributions over one family's samples. */
function calibrationOf(probabilities, observed) {
  let gap = 0;
  for (let j = 0; j < probabilities.length; j++) {
    const q = probabilities[j];
    let best = 0;
    for (let k = 1; k < K; k++) if (q[k] > q[best]) best = k;
    gap += q[best] - (best === observed[j] ? 1 : 0);
  }
  const random = generator(11);
  let floor = 0;
  for (let draw = 0; draw < 5; draw++) {
    const drawn = probabilities.map((q) => {
      let u = random();
      let k = 0;
      while (k < K - 1 && u >= q[k]) u -= q[k++];
      return k;
    });
    floor += expectedCalibrationError(probabilities, drawn) / 5;
  }
  return { ece: expectedCalibrationError(probabilities, observed), gap: gap / probabilities.length, floor };
}

const specs = ["ngram-ctx:4", ...recipes];
const families = [];
for (const [i, fold] of folds.entries()) {
  const data = splitDataOf(db, { abstraction, holdout: fold.map((f) => `family:${f}`).join("+") });
  const states = data.test.states;
  const predictions = [];
  for (const spec of specs) {
    // ngram-ctx:4 falls back to an n-gram fitted on the fold's training side, as eval gives it.
    const predictor = await createPredictor(
      spec === "ngram-ctx:4" ? spec : `student:${join(foldsDir, `fold-${i + 1}`, spec)}`,
      {
        training: { samples: samplesWithPrefixes(data.fit), states: data.fit.states },
        validation: data.validation.states,
      },
    );
    predictions.push((await predictor.predict(states)).map((p) => p.probabilities));
  }
  for (const family of fold) {
    const probabilities = specs.map(() => []);
    const observed = [];
    states.forEach((s, at) => {
      if (data.split.familyOf[s.program] !== family) return;
      EVENT_TYPES.forEach((event, k) => {
        for (let c = 0; c < s.counts[event]; c++) {
          observed.push(k);
          predictions.forEach((p, j) => probabilities[j].push(p[at]));
        }
      });
    });
    if (observed.length > 0)
      families.push({ family, samples: observed.length, scores: probabilities.map((p) => calibrationOf(p, observed)) });
  }
}
families.sort((a, b) => (a.family < b.family ? -1 : 1));

const cell = (c) =>
  `${c.ece.toFixed(3)} (${c.gap >= 0 ? "+" : "−"}${Math.abs(c.gap).toFixed(3)}; floor ${c.floor.toFixed(3)})`;
console.log(`${abstraction}, ${folds.length} folds, ${families.length} families`);
console.log(`| family | samples | ${specs.join(" | ")} |`);
console.log(`|---|---|${specs.map(() => "---|").join("")}`);
for (const f of families) console.log(`| ${f.family} | ${f.samples} | ${f.scores.map(cell).join(" | ")} |`);
const mean = (j, key) => families.reduce((a, f) => a + f.scores[j][key], 0) / families.length;
for (const [j, spec] of specs.entries()) {
  const above = j === 0 ? [] : families.filter((f) => f.scores[j].ece > f.scores[0].ece).map((f) => f.family);
  console.log(
    `${spec}: family-mean ECE ${mean(j, "ece").toFixed(3)} (floor ${mean(j, "floor").toFixed(3)})` +
      (j === 0 ? "" : `; above ngram-ctx:4 on ${above.length}: ${above.join(", ")}`),
  );
}
db.close();
