// The leave-family-out CV scoreboard as a report section: per abstraction, every student and
// baseline with its accuracy and family-bootstrap interval, the in-sample and leave-one-run-out
// ceilings and each predictor's gap to them, its difference from the in-context reference, and
// its calibration (ECE, NLL, Brier, coverage and size of conformal prediction sets).
// `crossValidationBoard` turns a CV run into the JSON-safe board the section (and `run`'s
// stage store) keeps.

import type { CrossValidationRun } from "../../cv/index.js";
import {
  CONFORMAL_COVERAGE,
  type SampleConcentration,
  type UnitMeans,
  type WeightedFigures,
} from "../../eval/index.js";
import { escapeXml } from "../escape.js";
import {
  fixed,
  interval as fixedBounds,
  MISSING,
  pct,
  pctInterval,
  pctLevel,
  plural,
  points,
  signed,
  signedPoints,
  signedPointsInterval,
} from "../../core/index.js";
import { htmlTable } from "../html.js";
import { dotPlot, reliabilityGrid } from "../svg/index.js";
import { markdownTable } from "../markdown.js";
import type { ReportSection } from "../types.js";
import {
  concentrationLine,
  estimateWithInterval,
  halfSamplesText,
  MEANS_HEADERS,
  MEANS_NUMERIC,
  meansRow,
} from "./evaluationTables.js";

/** An estimate with its 95 % family-bootstrap interval. */
export interface BoardInterval {
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
}

/** A figure's family and program means (src/eval/weighted.ts). */
export interface BoardUnitMeans {
  readonly familyMean: BoardInterval;
  readonly programMean: BoardInterval;
}

/** Accuracy, ECE and NLL with every family, and every program, counted once. */
export interface BoardMeans {
  readonly accuracy: BoardUnitMeans;
  readonly ece: BoardUnitMeans;
  readonly nll: BoardUnitMeans;
}

/** One family's figures of a predictor on the runs it did not read (CrossValidatedPredictor.otherRunsFamilies). */
export interface BoardFamilyFigure {
  readonly family: string;
  readonly accuracy: BoardInterval;
  readonly ece: number;
  readonly reliability: readonly {
    readonly lower: number;
    readonly upper: number;
    readonly count: number;
    readonly confidence: number;
    readonly accuracy: number;
  }[];
}

/** One predictor's row of the board. */
export interface BoardPredictor {
  readonly name: string;
  readonly accuracy: BoardInterval;
  /** The mean of the families' accuracies (each family once); absent on boards stored before it. */
  readonly familyMean?: BoardInterval;
  /** Accuracy, ECE and NLL means on every sample and on the other runs; absent on boards stored before them. */
  readonly means?: BoardMeans;
  readonly otherRunsMeans?: BoardMeans;
  /** Per family, on the runs it did not read; absent on boards stored before it. */
  readonly families?: readonly BoardFamilyFigure[];
  /** Accuracy on the runs the predictor did not read its prefix from (CrossValidatedPredictor.otherRunsAccuracy); absent on boards stored before it. */
  readonly otherRuns?: BoardInterval;
  /** ECE and NLL on those runs; absent on boards stored before them. */
  readonly otherRunsEce?: BoardInterval;
  readonly otherRunsNll?: BoardInterval;
  /** In-sample ceiling − accuracy, and leave-one-run-out ceiling − accuracy on the other runs (fractions). */
  readonly gapToCeiling: number;
  readonly gapToCeilingLoo: number;
  readonly ece: BoardInterval;
  /** Mean confidence − accuracy: > 0 over-confident, < 0 under-confident (absent on boards stored before it). */
  readonly overconfidence?: number;
  readonly nll: BoardInterval;
  readonly brier: number;
  /** Coverage of the conformal sets and their mean size; null when no set was calibrated. */
  readonly coverage: BoardInterval | null;
  readonly setSize: BoardInterval | null;
  /** accuracy − the reference's, paired, with the sign-flip p-value; null for the reference itself. */
  readonly againstReference: {
    readonly difference: BoardInterval;
    readonly p: number;
    /** The paired difference of the family means; absent on boards stored before it. */
    readonly familyMeanDifference?: BoardInterval;
    /** Programs where the reference's accuracy exceeds this predictor's by more than 2 points, and the reverse, of all; absent on boards stored before it. */
    readonly programs?: { readonly behind: number; readonly ahead: number; readonly of: number };
  } | null;
  readonly foldAccuracy: readonly number[];
}

/** One abstraction's board. */
export interface BoardAbstraction {
  readonly abstraction: string;
  readonly families: number;
  readonly programs: number;
  readonly states: number;
  readonly samples: number;
  /** What the intervals resample ("family" or "program") and how many. */
  readonly clusterUnit: string;
  readonly clusters: number;
  readonly ceiling: number;
  readonly ceilingLoo: number;
  readonly majority: number;
  readonly majorityClass: string;
  /** How much of the pooled figures the largest programs hold; absent on boards stored before it. */
  readonly concentration?: SampleConcentration;
  /** Each family in name order with its leave-one-run-out ceiling; absent on boards stored before it. */
  readonly familyCeilings?: readonly {
    readonly family: string;
    readonly programs: number;
    readonly samples: number;
    readonly ceilingLoo: number;
  }[];
  readonly seconds: number;
  readonly studentsTrained: number;
  readonly studentsReused: number;
  readonly predictors: readonly BoardPredictor[];
  readonly failures: readonly { readonly predictor: string; readonly message: string }[];
}

/** A spec as given and what it selected, in words. */
export interface BoardSpec {
  readonly spec: string;
  readonly description: string;
}

/** The CV scoreboard of a run, every number finite or null (it is stored as JSON). */
export interface CrossValidationBoard {
  readonly folds: number;
  readonly seed: number;
  readonly reference: string;
  /** The --train-on restriction, when there was one (absent on boards without it). */
  readonly trainOn?: BoardSpec;
  /** The holdout that was the one test fold (absent: K-fold CV). */
  readonly holdout?: BoardSpec;
  readonly conformalTarget: number;
  readonly abstractions: readonly BoardAbstraction[];
}

const interval = (i: BoardInterval): BoardInterval => ({ estimate: i.estimate, lower: i.lower, upper: i.upper });
const unitMeans = (m: UnitMeans): BoardUnitMeans => ({
  familyMean: interval(m.familyMean),
  programMean: interval(m.programMean),
});
const boardMeans = (w: WeightedFigures): BoardMeans => ({
  accuracy: unitMeans(w.accuracy),
  ece: unitMeans(w.ece),
  nll: unitMeans(w.nll),
});

/** The board of a CV run: what the section shows, without fold students' paths or thresholds. */
export function crossValidationBoard(run: CrossValidationRun): CrossValidationBoard {
  return {
    folds: run.folds,
    seed: run.foldSeed,
    reference: run.reference,
    ...(run.trainOn === undefined ? {} : { trainOn: { ...run.trainOn } }),
    ...(run.holdout === undefined ? {} : { holdout: { ...run.holdout } }),
    conformalTarget: CONFORMAL_COVERAGE,
    abstractions: run.abstractions.map((a): BoardAbstraction => {
      const s = a.scores;
      const students = a.folds.flatMap((f) => f.students);
      return {
        abstraction: a.abstraction,
        families: a.assignment.folds.reduce((n, f) => n + f.length, 0),
        programs: s.programs,
        states: s.states,
        samples: s.samples,
        clusterUnit: s.clusterUnit.unit,
        clusters: s.clusterUnit.clusters,
        ceiling: s.ceiling,
        ceilingLoo: s.ceilingLoo,
        majority: s.majority,
        majorityClass: s.majorityClass,
        concentration: s.concentration,
        familyCeilings: s.families,
        seconds: a.seconds,
        studentsTrained: students.filter((st) => !st.reused).length,
        studentsReused: students.filter((st) => st.reused).length,
        predictors: s.predictors.map((p): BoardPredictor => {
          const d = s.againstReference.find((r) => r.predictor === p.name);
          return {
            name: p.name,
            accuracy: interval(p.accuracy),
            otherRuns: interval(p.otherRunsAccuracy),
            otherRunsEce: interval(p.otherRunsEce),
            otherRunsNll: interval(p.otherRunsNll),
            familyMean: interval(p.clusterMeanAccuracy),
            means: boardMeans(p.means),
            otherRunsMeans: boardMeans(p.otherRunsMeans),
            families: p.otherRunsFamilies.map((f) => ({
              family: f.name,
              accuracy: interval(f.accuracy),
              ece: f.ece,
              // Empty bins have no confidence or accuracy (NaN), and the board must stay JSON-safe.
              reliability: f.reliability
                .filter((b) => b.count > 0)
                .map((b) => ({
                  lower: b.lower,
                  upper: b.upper,
                  count: b.count,
                  confidence: b.confidence,
                  accuracy: b.accuracy,
                })),
            })),
            gapToCeiling: s.ceiling - p.accuracy.estimate,
            gapToCeilingLoo: p.gapToCeilingLoo,
            ece: interval(p.ece),
            overconfidence: p.overconfidence,
            nll: interval(p.nll),
            brier: p.brier,
            coverage: p.conformal === null ? null : interval(p.conformal.coverage),
            setSize: p.conformal === null ? null : interval(p.conformal.setSize),
            againstReference:
              d === undefined
                ? null
                : {
                    difference: interval(d.difference),
                    p: d.p,
                    familyMeanDifference: interval(d.clusterMeanDifference),
                    programs: {
                      behind: d.programLeads.bAhead,
                      ahead: d.programLeads.aAhead,
                      of: d.programLeads.programs,
                    },
                  },
            foldAccuracy: p.foldAccuracy,
          };
        }),
        failures: a.failures.map((f) => ({ predictor: f.predictor, message: f.message })),
      };
    }),
  };
}

const fixedInterval = (i: BoardInterval | null): string => (i === null ? MISSING : fixedBounds(i.lower, i.upper));

const HEADERS = (reference: string, target: number): string[] => [
  "predictor",
  "accuracy",
  "95% CI",
  "other runs",
  "95% CI",
  `− ${reference} (points)`,
  "95% CI",
  "family mean",
  "95% CI",
  `− ${reference} (points)`,
  "95% CI",
  `programs behind / ahead of ${reference}`,
  "gap to ceiling",
  "gap to LOO ceiling (other runs)",
  "ECE",
  "95% CI",
  "conf − acc",
  "NLL",
  "95% CI",
  "ECE (other runs)",
  "NLL (other runs)",
  "Brier",
  `coverage of ${pctLevel(target)} sets`,
  "95% CI",
  "set size",
];
const NUMERIC = [1, 3, 5, 7, 9, 11, 12, 13, 14, 16, 17, 19, 20, 21, 22, 24];

function rows(a: BoardAbstraction): string[][] {
  return a.predictors.map((p) => [
    p.name,
    pct(p.accuracy.estimate),
    pctInterval(p.accuracy),
    p.otherRuns === undefined ? MISSING : pct(p.otherRuns.estimate),
    p.otherRuns === undefined ? MISSING : pctInterval(p.otherRuns),
    p.againstReference === null ? MISSING : signedPoints(p.againstReference.difference.estimate),
    signedPointsInterval(p.againstReference?.difference),
    p.familyMean === undefined ? MISSING : pct(p.familyMean.estimate),
    p.familyMean === undefined ? MISSING : pctInterval(p.familyMean),
    signedPoints(p.againstReference?.familyMeanDifference?.estimate),
    signedPointsInterval(p.againstReference?.familyMeanDifference),
    p.againstReference?.programs === undefined
      ? MISSING
      : `${p.againstReference.programs.behind} / ${p.againstReference.programs.ahead}`,
    points(p.gapToCeiling),
    points(p.gapToCeilingLoo),
    fixed(p.ece.estimate),
    fixedInterval(p.ece),
    signed(p.overconfidence),
    fixed(p.nll.estimate),
    fixedInterval(p.nll),
    p.otherRunsEce === undefined ? MISSING : fixed(p.otherRunsEce.estimate),
    p.otherRunsNll === undefined ? MISSING : fixed(p.otherRunsNll.estimate),
    fixed(p.brier),
    p.coverage === null ? MISSING : pct(p.coverage.estimate),
    pctInterval(p.coverage),
    p.setSize === null ? MISSING : fixed(p.setSize.estimate, 2),
  ]);
}

/** Pooled accuracy, ECE and NLL beside their family and program means, on every sample and on the other runs. */
function meansRows(a: BoardAbstraction): string[][] {
  return a.predictors.flatMap((p) =>
    [
      meansRow(p.name, { accuracy: p.accuracy.estimate, ece: p.ece.estimate, nll: p.nll.estimate }, p.means),
      p.otherRuns === undefined || p.otherRunsEce === undefined || p.otherRunsNll === undefined
        ? null
        : meansRow(
            `${p.name} (other runs)`,
            { accuracy: p.otherRuns.estimate, ece: p.otherRunsEce.estimate, nll: p.otherRunsNll.estimate },
            p.otherRunsMeans,
          ),
    ].filter((row): row is string[] => row !== null),
  );
}

/** The means table of an abstraction with the line that says what the pooled figures weigh; none on old boards. */
export function meansPart(a: BoardAbstraction): { readonly line: string; readonly rows: string[][] } | null {
  const body = meansRows(a);
  if (body.length === 0) return null;
  return { line: concentrationLine(a.concentration, a.clusterUnit === "family" ? "family" : "program"), rows: body };
}

/** The predictors the per-family pictures show: the students, then the in-context reference. */
function pictured(board: CrossValidationBoard, a: BoardAbstraction): BoardPredictor[] {
  return [
    ...a.predictors.filter((p) => p.name.startsWith("student:")),
    ...a.predictors.filter((p) => p.name === board.reference),
  ].filter((p) => p.families !== undefined);
}

/**
 * Per family: each pictured predictor's accuracy on the runs it did not read, with its interval
 * over the family's programs, beside the family's leave-one-run-out ceiling (a dot plot); and each
 * one's reliability in the family (small multiples). Empty on boards stored before them.
 */
function familyPictures(
  board: CrossValidationBoard,
  a: BoardAbstraction,
): { dots: string; reliability: string } | null {
  const shown = pictured(board, a);
  const ceilings = a.familyCeilings;
  if (shown.length === 0 || ceilings === undefined || ceilings.length === 0) return null;
  const figure = (p: BoardPredictor, family: string): BoardFamilyFigure | undefined =>
    p.families!.find((f) => f.family === family);
  const dots = dotPlot({
    title: `${a.abstraction}: accuracy per family on the runs each predictor did not read, beside the family's leave-one-run-out ceiling`,
    series: shown.map((p) => p.name),
    referenceLabel: "leave-one-run-out ceiling",
    xLabel: "accuracy on the runs not read (interval over the family's programs)",
    rows: ceilings.map((c) => ({
      label: c.family,
      reference: c.ceilingLoo,
      note: `${plural(c.programs, "program")}, ${plural(c.samples, "sample")}`,
      marks: shown.flatMap((p, series) => {
        const f = figure(p, c.family);
        return f === undefined
          ? []
          : [{ series, estimate: f.accuracy.estimate, lower: f.accuracy.lower, upper: f.accuracy.upper }];
      }),
    })),
  });
  const reliability = reliabilityGrid({
    title: `${a.abstraction}: reliability per family on the runs each predictor did not read`,
    series: shown.map((p) => p.name),
    panels: ceilings.map((c) => ({
      label: c.family,
      curves: shown.map((p) => figure(p, c.family)?.reliability ?? null),
      note: shown
        .map((p) => {
          const f = figure(p, c.family);
          return `${p.name}: ECE ${f === undefined ? MISSING : fixed(f.ece)}`;
        })
        .join("\n"),
    })),
  });
  return { dots, reliability };
}

/** What was trained on and tested, in words: "5 folds of 41 families (seed 1)", with the --train-on and holdout said. */
export function designWords(board: CrossValidationBoard, a: BoardAbstraction): string {
  const trained = board.trainOn === undefined ? "" : `trained on ${board.trainOn.description} only`;
  if (board.holdout !== undefined)
    return (
      `tested on ${board.holdout.description} (${plural(a.families, "family", "families")}), ` +
      (trained === "" ? "trained on every other program" : trained)
    );
  return (
    `${plural(board.folds, "fold")} of ${plural(a.families, "family", "families")} (seed ${board.seed})` +
    (board.trainOn === undefined ? "" : `, all from ${board.trainOn.description}`)
  );
}

/** The section's title: the CV, within its training set, or the holdout it scored. */
export function crossValidationTitle(board: CrossValidationBoard): string {
  if (board.holdout !== undefined)
    return `Trained on ${board.trainOn?.spec ?? "every other program"}, tested on ${board.holdout.spec}`;
  return (
    `Leave-family-out cross-validation (${plural(board.folds, "fold")})` +
    (board.trainOn === undefined ? "" : ` within ${board.trainOn.spec}`)
  );
}

function contextLine(board: CrossValidationBoard, a: BoardAbstraction): string {
  const unit = a.clusterUnit === "family" ? plural(a.clusters, "family", "families") : plural(a.clusters, "program");
  const students = a.studentsTrained + a.studentsReused;
  return (
    `${a.abstraction}: ${designWords(board, a)}, ` +
    `${plural(a.programs, "program")}, ${plural(a.states, "state")}, ${plural(a.samples, "sample")}; ` +
    `ceiling ${pct(a.ceiling)}, leave-one-run-out ceiling ${pct(a.ceilingLoo)}, ` +
    `majority (${a.majorityClass}) ${pct(a.majority)}; intervals resample ${unit}; ` +
    `${students === 0 ? "no students" : `${plural(students, "fold student")} (${a.studentsReused} reused)`}, ${a.seconds.toFixed(0)} s.`
  );
}

function notes(board: CrossValidationBoard): string[] {
  return [
    board.holdout === undefined
      ? "Every program is tested once, in the fold its family was dealt to; " +
        "students and fitted baselines are trained on the other folds (early stopping and calibration on " +
        "validation families drawn from them), so no number here was fitted on the families it scores. Beside " +
        "the holdout above, this is the scoreboard that ranks predictors (docs/training.md, " +
        `"Leave-family-out cross-validation").`
      : "One fold, the holdout: its programs are tested, students and fitted baselines are trained on the " +
        "training set (early stopping and calibration on validation families drawn from it), and no family of " +
        'the holdout is in it (docs/training.md, "Training sets and corpora").',
    "Other runs: the accuracy (ECE, NLL) on the samples of every run but the one the predictor read its prefix from — " +
      "a prefix predicts its own run's next event far better than the others', so with R runs per program " +
      "the pooled accuracy carries a 1/R share of that easier sample; this one does not depend on R. " +
      "Gap to ceiling: the in-sample ceiling (each state's mode) minus accuracy; to the leave-one-run-out ceiling " +
      `(the mode of the state's other runs): minus the accuracy on the other runs, which it bounds; in points. − ${board.reference}: ` +
      "the paired accuracy difference against the in-context n-gram on the same samples, family-bootstrapped. " +
      "Accuracy pools every test sample, so the families with the longest runs weigh most; the family mean " +
      "averages each family's accuracy, every family once — the estimate for a new family of code. " +
      `Programs behind / ahead of ${board.reference}: on how many programs its accuracy is more than 2 points ` +
      "under the reference's, and over it (a family can hide a program lost).",
    "ECE: top-label, 15 bins; conf − acc: mean top-label confidence minus accuracy (> 0 over-confident, " +
      "< 0 under-confident). NLL in nats. Brier summed over the six events. Coverage: " +
      "the share of test samples whose observed next event is in the split-conformal prediction set (LAC score " +
      "1 − q(event), threshold calibrated per fold on its validation families for " +
      `a ${pctLevel(board.conformalTarget)} target); set size: ` +
      "the mean number of events in the set (1 is a point prediction, 6 no information).",
  ];
}

/** The section; `id` defaults to "cross-validation". */
export function crossValidationSection(board: CrossValidationBoard, id = "cross-validation"): ReportSection {
  const headers = HEADERS(board.reference, board.conformalTarget);
  const failures = (a: BoardAbstraction): string[] => a.failures.map((f) => `${f.predictor} failed: ${f.message}`);
  return {
    id,
    title: crossValidationTitle(board),
    html: () =>
      [
        ...board.abstractions.flatMap((a) => [
          `<h3>${escapeXml(a.abstraction)}</h3>`,
          `<p>${escapeXml(contextLine(board, a))}</p>`,
          `<div class="scroll">${htmlTable({ headers, rows: rows(a), numeric: NUMERIC })}</div>`,
          ...[meansPart(a)]
            .filter((m) => m !== null)
            .flatMap((m) => [
              `<p>${escapeXml(m.line)}</p>`,
              `<div class="scroll">${htmlTable({ headers: MEANS_HEADERS, rows: m.rows, numeric: MEANS_NUMERIC })}</div>`,
            ]),
          ...[familyPictures(board, a)]
            .filter((f) => f !== null)
            .flatMap((f) => [
              `<div class="charts"><figure>${f.dots}<figcaption>Dots: accuracy on the runs each predictor did not ` +
                "read its prefix from, whiskers its 95 % interval over the family's programs (none for a family of one " +
                "program); black tick: the family's leave-one-run-out ceiling, which bounds it. Hover a row for its " +
                "numbers.</figcaption></figure></div>",
              `<div class="charts"><figure>${f.reliability}<figcaption>Each panel one family: a curve through each ` +
                "predictor's confidence bins (mean confidence, accuracy) on the runs it did not read; below the diagonal " +
                "it is over-confident there, above it under-confident. Hover a panel for the ECEs.</figcaption></figure></div>",
            ]),
          ...failures(a).map((f) => `<p class="note">${escapeXml(f)}</p>`),
        ]),
        board.abstractions.length === 0 ? `<p class="note">No abstraction was cross-validated.</p>` : "",
        `<ul class="note">${notes(board)
          .map((n) => `<li>${escapeXml(n)}</li>`)
          .join("")}</ul>`,
      ].join("\n"),
    markdown: () =>
      [
        ...board.abstractions.flatMap((a) => [
          `### ${a.abstraction}`,
          contextLine(board, a),
          markdownTable(headers, rows(a), NUMERIC),
          ...[meansPart(a)]
            .filter((m) => m !== null)
            .flatMap((m) => [m.line, markdownTable(MEANS_HEADERS, m.rows, MEANS_NUMERIC)]),
          ...failures(a),
        ]),
        ...(board.abstractions.length === 0 ? ["No abstraction was cross-validated."] : []),
        notes(board)
          .map((n) => `- ${n}`)
          .join("\n"),
      ].join("\n\n"),
    json: () => board,
  };
}

/** "70.1 % [64.2, 75.3]": a share with its interval. */
const pctWithInterval = (i: BoardInterval): string => `${pct(i.estimate)} ${pctInterval(i)}`;

/**
 * One line per abstraction for `run`'s summary: `headline`'s CV accuracy pooled (with what it
 * weighs), its family and program means with intervals against the reference's, its accuracy
 * on the runs it did not read against the leave-one-run-out ceiling, and its ECE and NLL pooled and
 * as family means.
 */
export function crossValidationLine(board: CrossValidationBoard, headline: string | null): string {
  const parts = board.abstractions.map((a) => {
    const shown =
      a.predictors.find((p) => p.name === headline) ??
      a.predictors.find((p) => p.name.startsWith("student:")) ??
      a.predictors[0];
    const reference = a.predictors.find((p) => p.name === board.reference);
    if (shown === undefined) return `${a.abstraction}: no predictor`;
    const versus = (pick: (p: BoardPredictor) => BoardInterval | undefined, format = pct): string => {
      const theirs = reference === undefined || shown === reference ? undefined : pick(reference);
      return theirs === undefined ? "" : ` vs ${reference!.name} ${format(theirs.estimate)}`;
    };
    const sets =
      shown.coverage === null ? "" : `, ${pctLevel(board.conformalTarget)} sets cover ${pct(shown.coverage.estimate)}`;
    // With too few families to resample, the unit is the program and the family mean is the program mean.
    const byFamily = a.clusterUnit === "family";
    const m = shown.means;
    const means =
      m === undefined
        ? shown.familyMean === undefined
          ? ""
          : `, ${byFamily ? "family" : "program"} mean ${pct(shown.familyMean.estimate)}${versus((p) => p.familyMean)}`
        : (byFamily
            ? `, family mean ${pctWithInterval(m.accuracy.familyMean)}${versus((p) => p.means?.accuracy.familyMean)}`
            : "") +
          `, program mean ${pctWithInterval(m.accuracy.programMean)}${versus((p) => p.means?.accuracy.programMean)}`;
    const programs = shown.againstReference?.programs;
    const behind =
      programs === undefined ? "" : `, behind it on ${programs.behind} of ${programs.of} programs by > 2 points`;
    const eceMean = m === undefined ? undefined : byFamily ? m.ece.familyMean : m.ece.programMean;
    const calibration =
      eceMean === undefined
        ? `ECE ${fixed(shown.ece.estimate)}`
        : `ECE ${fixed(shown.ece.estimate)} pooled, ${estimateWithInterval(eceMean.estimate, eceMean)} ` +
          `${byFamily ? "family" : "program"} mean` +
          versus(
            (p) => (p.means === undefined ? undefined : byFamily ? p.means.ece.familyMean : p.means.ece.programMean),
            (x) => fixed(x),
          );
    return (
      `${a.abstraction} ${shown.name} ${pctWithInterval(shown.accuracy)} pooled${halfSamplesText(a.concentration)}` +
      `${versus((p) => p.accuracy)}${means}${behind}; ` +
      (shown.otherRuns === undefined ? "" : `on the runs it did not read ${pct(shown.otherRuns.estimate)}, `) +
      `LOO ceiling ${pct(a.ceilingLoo)} (gap ${points(shown.gapToCeilingLoo)} points); ` +
      `${calibration}${sets}`
    );
  });
  return `cross-validation (${plural(board.folds, "fold")} of families): ${parts.join("; ") || "nothing cross-validated"}`;
}
