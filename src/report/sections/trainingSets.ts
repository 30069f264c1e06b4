// Training sets side by side (docs/training.md, "Training sets and corpora"): one row per
// training set, test set and abstraction, each from the CV board of one `eval --cv` (K folds
// within the training set, or one fold, the holdout, with --train-on): a student's accuracy and
// family mean with their intervals beside the in-context reference's, and the leave-one-run-out
// ceiling. Pure: boards in, a Markdown table out.

import { MISSING, pct, pctInterval } from "../../core/index.js";
import { markdownTable } from "../markdown.js";
import type { BoardAbstraction, BoardPredictor, CrossValidationBoard } from "./crossValidation.js";

/** One scored training set: what it is called, what it was tested on, and its board. */
export interface TrainingSetScore {
  /** The training set in a word or two, e.g. "bundled". */
  readonly training: string;
  /** What it was tested on, e.g. "CV (5 folds)", "realcode", "dir:kernels". */
  readonly tested: string;
  readonly board: CrossValidationBoard;
}

export const TRAINING_SETS_HEADERS = [
  "training set",
  "tested on",
  "abstraction",
  "families",
  "student",
  "accuracy",
  "95% CI",
  "family mean",
  "95% CI",
  "reference accuracy",
  "reference family mean",
  "LOO ceiling",
  "other runs / LOO ceiling",
] as const;

const NUMERIC = [3, 5, 7, 9, 10, 11, 12];

/** The student a row shows: `student` when the board has it, else its first student, else its first predictor. */
function shownPredictor(a: BoardAbstraction, student: string | undefined): BoardPredictor | undefined {
  return (
    a.predictors.find((p) => p.name === student) ??
    a.predictors.find((p) => p.name.startsWith("student:")) ??
    a.predictors[0]
  );
}

/**
 * The rows of TRAINING_SETS_HEADERS: per score, one row per abstraction of its board, with
 * `student`'s figures (by default the board's first student) and the board's reference.
 *
 * @example trainingSetsRows([{ training: "bundled", tested: "dir:kernels", board }])[0]?.[0] // => "bundled"
 */
export function trainingSetsRows(scores: readonly TrainingSetScore[], student?: string): string[][] {
  return scores.flatMap((score) =>
    score.board.abstractions.map((a) => {
      const shown = shownPredictor(a, student);
      const reference = a.predictors.find((p) => p.name === score.board.reference);
      const familyMean = (p: BoardPredictor | undefined): string =>
        p?.means === undefined ? MISSING : pct(p.means.accuracy.familyMean.estimate);
      return [
        score.training,
        score.tested,
        a.abstraction,
        String(a.families),
        shown?.name ?? MISSING,
        shown === undefined ? MISSING : pct(shown.accuracy.estimate),
        shown === undefined ? MISSING : pctInterval(shown.accuracy),
        familyMean(shown),
        shown?.means === undefined ? MISSING : pctInterval(shown.means.accuracy.familyMean),
        reference === undefined ? MISSING : pct(reference.accuracy.estimate),
        familyMean(reference),
        pct(a.ceilingLoo),
        shown?.otherRuns === undefined || a.ceilingLoo === 0 ? MISSING : pct(shown.otherRuns.estimate / a.ceilingLoo),
      ];
    }),
  );
}

/** The Markdown table of `scores` (see trainingSetsRows), under a line naming the reference. */
export function trainingSetsMarkdown(scores: readonly TrainingSetScore[], student?: string): string {
  const reference = scores[0]?.board.reference ?? MISSING;
  return [
    `Reference: ${reference}. Accuracy pools every test sample; the family mean counts every family once ` +
      "(intervals resample families, or programs where there are too few families). Other runs / LOO ceiling: " +
      "the accuracy on the runs the predictor did not read its prefix from, as a share of the leave-one-run-out " +
      "ceiling that bounds it.",
    markdownTable(TRAINING_SETS_HEADERS, trainingSetsRows(scores, student), NUMERIC),
  ].join("\n\n");
}
