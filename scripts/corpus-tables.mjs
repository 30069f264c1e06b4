// The training-set tables of docs/training.md ("Training sets and corpora", issue 42 item 4):
// on one database holding the bundled corpus and the realcode modules, leave-family-out CV within
// each of three training sets (bundled, realcode, both) and each training set carried to the other
// corpus and to dir:kernels (`eval --cv --train-on A --holdout B`: one fold, the holdout), every
// one scored with the CV scoreboard; then one table side by side. Every table is what the same
// `schedlab eval` command prints with --markdown; this script runs them in one process and writes
// the block of its abstractions between
//   <!-- corpus-tables:ABSTRACTIONS:begin --> … <!-- corpus-tables:ABSTRACTIONS:end -->
// (ABSTRACTIONS e.g. split, or depth+split) in docs/training.md (--write: replaced, or added after
// the last such block), else prints it. Usage:
//   npm run build && node scripts/corpus-tables.mjs --db DB --realcode ../shared/realcode-modules.tsv \
//     [--bundled corpus:go-programs] [--kernels dir:kernels] [--folds 5] [--adapters DIR] \
//     [--abstraction split --abstraction depth] [--max-samples-per-program N] [--predictor SPEC …] \
//     [--only TRAINING:TESTED …] [--json FILE] [--write]
// --only keeps the tables named TRAINING:TESTED (training bundled|realcode|both; tested cv,
// bundled, realcode or kernels), e.g. --only both:kernels; by default all eight.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = fileURLToPath(new URL("..", import.meta.url));
const lib = (path) => import(new URL(`../dist/${path}`, import.meta.url).href);
const { openExistingDatabase } = await lib("store/index.js");
const { runCrossValidation } = await lib("cv/index.js");
const { crossValidationBoard, crossValidationSection, crossValidationTitle, trainingSetsMarkdown } =
  await lib("report/index.js");

const PREDICTORS = ["majority", "ngram:3", "ngram-ctx:4", "student:kl"];

const { values } = parseArgs({
  options: {
    db: { type: "string" },
    realcode: { type: "string" },
    bundled: { type: "string", default: "corpus:go-programs" },
    kernels: { type: "string", default: "dir:kernels" },
    folds: { type: "string", default: "5" },
    "max-samples-per-program": { type: "string" },
    only: { type: "string", multiple: true },
    adapters: { type: "string", default: "adapters" },
    abstraction: { type: "string", multiple: true },
    predictor: { type: "string", multiple: true },
    json: { type: "string" },
    write: { type: "boolean", default: false },
  },
});
if (values.db === undefined || values.realcode === undefined) {
  process.stderr.write("usage: node scripts/corpus-tables.mjs --db DB --realcode CORPUS_FILE [options]\n");
  process.exit(2);
}
const bundled = values.bundled;
const realcode = `corpus-file:${values.realcode}`;
const both = `${bundled}+${realcode}`;
const folds = Number(values.folds);
const abstractions = values.abstraction ?? ["split", "depth"];
const predictors = values.predictor ?? PREDICTORS;
const cap = values["max-samples-per-program"] === undefined ? undefined : Number(values["max-samples-per-program"]);
const tag = [...abstractions].sort().join("+");
const BEGIN = `<!-- corpus-tables:${tag}:begin -->`;
const END = `<!-- corpus-tables:${tag}:end -->`;

// What each table is: the training set (--train-on) and, for a carry, the holdout it is tested on.
const table = (training, tested, trainOn, holdout, name) => ({ name, training, tested, trainOn, holdout });
const cv = `CV (${folds} folds)`;
const all = [
  table("bundled", cv, bundled, undefined, "bundled:cv"),
  table("realcode", cv, realcode, undefined, "realcode:cv"),
  table("both", cv, both, undefined, "both:cv"),
  table("bundled", "realcode", bundled, realcode, "bundled:realcode"),
  table("realcode", "bundled", realcode, bundled, "realcode:bundled"),
  table("bundled", values.kernels, bundled, values.kernels, "bundled:kernels"),
  table("realcode", values.kernels, realcode, values.kernels, "realcode:kernels"),
  table("both", values.kernels, both, values.kernels, "both:kernels"),
];
const unknown = (values.only ?? []).filter((name) => !all.some((t) => t.name === name));
if (unknown.length > 0) {
  process.stderr.write(`corpus-tables: no table ${unknown.join(", ")}; tables: ${all.map((t) => t.name).join(", ")}\n`);
  process.exit(2);
}
const runs = values.only === undefined ? all : all.filter((t) => values.only.includes(t.name));

const command = (run) =>
  [
    "schedlab eval --db DB",
    run.holdout === undefined ? `--cv ${folds}` : "--cv",
    `--train-on ${run.trainOn}`,
    ...(run.holdout === undefined ? [] : [`--holdout ${run.holdout}`]),
    ...abstractions.map((a) => `--abstraction ${a}`),
    ...(cap === undefined ? [] : [`--max-samples-per-program ${cap}`]),
    ...predictors.map((p) => `--predictor ${p}`),
    "--markdown",
  ].join(" ");

const db = openExistingDatabase(values.db);
const scores = [];
const sections = [];
const started = Date.now();
try {
  for (const run of runs) {
    process.stderr.write(`corpus-tables: ${command(run)}\n`);
    const result = await runCrossValidation(db, {
      predictors,
      abstractions,
      folds,
      trainOn: run.trainOn,
      holdout: run.holdout,
      adapters: values.adapters,
      ...(cap === undefined ? {} : { maxSamplesPerProgram: cap }),
      onProgress: (line, transient) => {
        if (transient !== true) process.stderr.write(`  ${line}\n`);
      },
    });
    const board = crossValidationBoard(result);
    scores.push({ training: run.training, tested: run.tested, board });
    sections.push(
      [
        `##### ${crossValidationTitle(board)}`,
        `\`${command(run)}\``,
        crossValidationSection(board).markdown().replace(/^### /gm, "###### "),
      ].join("\n\n"),
    );
  }
} finally {
  db.close();
}
const minutes = ((Date.now() - started) / 60000).toFixed(1);
const block = [
  BEGIN,
  "",
  `Generated by \`node scripts/corpus-tables.mjs --db DB --realcode ${values.realcode} ` +
    `${abstractions.map((a) => `--abstraction ${a}`).join(" ")}` +
    `${cap === undefined ? "" : ` --max-samples-per-program ${cap}`}` +
    `${values.only === undefined ? "" : values.only.map((name) => ` --only ${name}`).join("")}\` on ` +
    `${new Date().toISOString().slice(0, 10)} (${minutes} min on this machine): bundled = \`${bundled}\`, ` +
    `realcode = \`${realcode}\`, both = \`${both}\`.`,
  "",
  "#### Training sets side by side",
  "",
  trainingSetsMarkdown(scores),
  "",
  "#### Each table",
  "",
  sections.join("\n\n"),
  "",
  END,
].join("\n");

if (values.json !== undefined) {
  writeFileSync(values.json, `${JSON.stringify({ runs: runs.map((r, i) => ({ ...r, board: scores[i].board })) })}\n`);
  process.stderr.write(`corpus-tables: wrote the boards to ${values.json}\n`);
}
if (values.write) {
  const file = join(root, "docs", "training.md");
  const text = readFileSync(file, "utf8");
  const from = text.indexOf(BEGIN);
  const to = text.indexOf(END);
  if (from >= 0 && to > from) writeFileSync(file, text.slice(0, from) + block + text.slice(to + END.length));
  else {
    // A new set of abstractions: its block goes after the last block of tables.
    const last = [...text.matchAll(/<!-- corpus-tables:[a-z+]+:end -->/g)].at(-1);
    if (last === undefined) {
      process.stderr.write(`corpus-tables: ${file} has no <!-- corpus-tables:…:end --> block to add to\n`);
      process.exit(1);
    }
    const at = last.index + last[0].length;
    writeFileSync(file, `${text.slice(0, at)}\n\n${block}${text.slice(at)}`);
  }
  process.stderr.write(`corpus-tables: wrote the tables into ${file}\n`);
} else {
  process.stdout.write(`${block}\n`);
}
