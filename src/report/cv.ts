// The terminal rendering of `schedlab eval --cv K`: per abstraction, the pooled scoreboard
// (accuracy with its family-bootstrap interval and gap to the leave-one-run-out ceiling; ECE,
// NLL, Brier and the coverage and size of conformal prediction sets),
// each predictor's paired difference against the reference, and accuracy per fold.

import type { CrossValidatedAbstraction, CrossValidationRun } from "../cv/index.js";
import { cappedLine } from "../dataset/index.js";
import { CONFORMAL_COVERAGE } from "../eval/index.js";
import {
  fixed,
  interval,
  MISSING,
  pct,
  pctInterval,
  pctLevel,
  plural,
  points,
  pValue,
  signed,
  signedPoints,
  signedPointsInterval,
} from "../core/index.js";
import { textTable } from "./terminal.js";
import {
  crossValidationBoard,
  designWords,
  meansPart,
  type BoardAbstraction,
  type CrossValidationBoard,
} from "./sections/crossValidation.js";
import { MEANS_HEADERS } from "./sections/evaluationTables.js";

/** The conformal target of an abstraction's scoreboard (the same for every predictor). */
const conformalTarget = (a: CrossValidatedAbstraction): number =>
  a.scores.predictors.find((p) => p.conformal !== null)?.conformal?.target ?? CONFORMAL_COVERAGE;

function abstractionText(
  a: CrossValidatedAbstraction,
  board: CrossValidationBoard,
  boardAbstraction: BoardAbstraction,
  reference: string,
): string {
  const s = a.scores;
  const families = a.assignment.folds.reduce((n, f) => n + f.length, 0);
  const byFamily = s.clusterUnit.unit === "family";
  const clusters = plural(s.clusterUnit.clusters, byFamily ? "family" : "program", byFamily ? "families" : "programs");
  const design =
    board.holdout === undefined && board.trainOn === undefined
      ? `${a.assignment.k} folds (seed ${a.assignment.seed}) · ${plural(families, "family", "families")}`
      : designWords(board, boardAbstraction);
  const lines = [
    `${board.holdout === undefined ? "leave-family-out CV" : "holdout as one fold"} · ${a.abstraction} · ${design}, ` +
      `${plural(s.programs, "program")}, ${plural(s.states, "state")}, ` +
      `${plural(s.samples, "sample")} · intervals resample ${clusters} · ${a.seconds.toFixed(0)} s`,
    `ceiling ${pct(s.ceiling)} · leave-one-run-out ceiling ${pct(s.ceilingLoo)} · majority (${s.majorityClass}, from the training folds) ${pct(s.majority)}`,
    cappedLine(a.sampleCap),
    "",
    textTable(
      [
        "predictor",
        "accuracy",
        "95% CI",
        "other runs",
        "95% CI",
        "LOO gap",
        "of LOO",
        `${byFamily ? "family" : "program"} mean`,
        "95% CI",
      ],
      s.predictors.map((p) => [
        p.name,
        pct(p.accuracy.estimate),
        pctInterval(p.accuracy),
        pct(p.otherRunsAccuracy.estimate),
        pctInterval(p.otherRunsAccuracy),
        points(p.gapToCeilingLoo),
        pct(p.shareOfCeilingLoo),
        pct(p.clusterMeanAccuracy.estimate),
        pctInterval(p.clusterMeanAccuracy),
      ]),
    ),
    `accuracy: over all test samples (families with long runs weigh most); other runs: over the samples of every run ` +
      `but the one the predictor read its prefix from, the number the leave-one-run-out ceiling bounds; ` +
      `${byFamily ? "family" : "program"} mean: each ${byFamily ? "family" : "program"}'s accuracy averaged, every one counted once.`,
    // The means table as the report's section shows it, from the same board.
    ...[meansPart(boardAbstraction)]
      .filter((m) => m !== null)
      .flatMap((m) => ["", m.line, textTable(MEANS_HEADERS, m.rows)]),
    "",
    textTable(
      [
        "calibration",
        "ECE",
        "95% CI",
        "conf − acc",
        "NLL",
        "95% CI",
        "other runs: ECE",
        "95% CI",
        "conf − acc",
        "NLL",
        "Brier",
        `coverage@${pctLevel(conformalTarget(a))}`,
        "95% CI",
        "set size",
        "95% CI",
      ],
      s.predictors.map((p) => [
        p.name,
        fixed(p.ece.estimate),
        interval(p.ece.lower, p.ece.upper),
        signed(p.overconfidence),
        fixed(p.nll.estimate),
        interval(p.nll.lower, p.nll.upper),
        fixed(p.otherRunsEce.estimate),
        interval(p.otherRunsEce.lower, p.otherRunsEce.upper),
        signed(p.otherRunsOverconfidence),
        fixed(p.otherRunsNll.estimate),
        fixed(p.brier),
        p.conformal === null ? MISSING : pct(p.conformal.coverage.estimate),
        p.conformal === null ? MISSING : pctInterval(p.conformal.coverage),
        p.conformal === null ? MISSING : p.conformal.setSize.estimate.toFixed(2),
        p.conformal === null
          ? MISSING
          : `[${p.conformal.setSize.lower.toFixed(2)}, ${p.conformal.setSize.upper.toFixed(2)}]`,
      ]),
    ),
    "other runs: the same on the samples of the runs each prefix was not read from; " +
      "coverage: share of test samples whose next event is in the split-conformal set (LAC score, " +
      "calibrated per fold on its validation families); set size: mean events in the set.",
  ];
  if (s.againstReference.length > 0) {
    lines.push(
      "",
      textTable(
        [
          `vs ${reference}`,
          "accuracy difference (points)",
          "95% CI",
          "sign-flip p",
          "of the means",
          "95% CI",
          "programs behind / ahead",
        ],
        s.againstReference.map((d) => [
          d.predictor,
          signedPoints(d.difference.estimate),
          signedPointsInterval(d.difference),
          pValue(d.p),
          signedPoints(d.clusterMeanDifference.estimate),
          signedPointsInterval(d.clusterMeanDifference),
          `${d.programLeads.bAhead} / ${d.programLeads.aAhead}`,
        ]),
      ),
    );
  }
  lines.push(
    "",
    textTable(
      ["fold", "families", "programs", "samples", ...s.predictors.map((p) => p.name)],
      a.folds.map((f, i) => [
        String(f.fold),
        String(f.families.length),
        String(f.testPrograms),
        String(f.testSamples),
        ...s.predictors.map((p) => pct(p.foldAccuracy[i] ?? NaN)),
      ]),
    ),
  );
  const reused = a.folds.flatMap((f) => f.students).filter((st) => st.reused).length;
  const students = a.folds.flatMap((f) => f.students).length;
  if (students > 0) lines.push(`fold students: ${a.cacheDir} (${reused} of ${students} reused; --force retrains)`);
  return lines.join("\n");
}

/** Every abstraction's CV tables, separated by a blank line. */
export function crossValidationText(run: CrossValidationRun): string {
  const board = crossValidationBoard(run);
  return `${run.abstractions.map((a, i) => abstractionText(a, board, board.abstractions[i]!, run.reference)).join("\n\n")}\n`;
}
