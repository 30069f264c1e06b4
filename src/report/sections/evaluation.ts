// Report sections for a stored evaluation: the headline table with charts across
// predictors, the paired comparisons, and one detail section per predictor.

import { DEFAULT_RESAMPLES } from "../../metrics/index.js";
import type { StoredEvaluation, PredictorEvaluation } from "../../eval/index.js";
import { escapeXml } from "../escape.js";
import { count, fixed, plural, EVENT_TYPES } from "../../core/index.js";
import { htmlTable } from "../html.js";
import { markdownTable } from "../markdown.js";
import { barChart } from "../svg/barChart.js";
import { heatmap } from "../svg/heatmap.js";
import { reliabilityDiagram } from "../svg/reliabilityDiagram.js";
import { scatterPlot } from "../svg/scatterPlot.js";
import type { ReportSection } from "../types.js";
import {
  COMPARISON_HEADERS,
  comparisonRow,
  programLeadLines,
  ENTROPY_HEADERS,
  entropyRow,
  estimateWithInterval,
  concentrationLine,
  evaluationMeansRows,
  HEADLINE_HEADERS,
  MEANS_HEADERS,
  MEANS_NUMERIC,
  HEADLINE_NUMERIC,
  headlineRow,
  PER_EVENT_HEADERS,
  perEventRows,
} from "./evaluationTables.js";

const numericFrom = (count: number, first: number): number[] =>
  Array.from({ length: count - first }, (_, i) => i + first);

/** "ngram:3" → "ngram-3": an id fragment from a predictor name. */
export function slug(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return s === "" ? "predictor" : s;
}

function contextLine(e: StoredEvaluation): string {
  const first = e.predictors[0];
  const majority =
    first === undefined
      ? ""
      : ` Majority class ${first.majorityClass} (from the ${first.majoritySource === "train" ? "training" : "test"} split).`;
  return (
    `Eval run ${e.id} (${e.createdAt}): abstraction ${e.abstraction}, holdout ${e.holdout}; ` +
    `${plural(e.states, "test state")}, ${plural(e.samples, "sample")}, ${plural(e.programs, "program")}.${majority}`
  );
}

/** How the metrics of the headline table are defined; `resamples` is the bootstrap size the intervals were computed with. */
const metricNotes = (resamples: number, clusters: string): string[] => [
  "accuracy: top label against each run's observed next event (per sample); a tie of m top labels earns 1/m, " +
    `so uniform scores 1/6. 95% CI by resampling ${clusters} (${resamples} resamples, seeded).`,
  "mode acc: top label against argmax p̂ (per state, tied modes count, ties credited as above). ceiling: " +
    "always predicting the mode of p̂, in-sample (a state seen once scores 1); LOO ceiling: " +
    "each sample against the mode of its state in the other runs (the training majority where no other run " +
    "reached it). majority: always predicting the training split's most frequent event.",
  "ECE: top-label, 15 equal-width bins, sample-weighted, with tie credit; " +
    "its 95% CI resamples the same clusters as the accuracy's, recomputing the bins of each resample. " +
    "conf − acc: mean top-label confidence minus accuracy (> 0 over-confident, < 0 under-confident). Brier: " +
    "Σ over the six events, in [0, 2]. NLL and KL(p̂‖q) in nats, q floored at 1e-12. L1: Σ|q − p̂| / 6.",
  "H ρ / H r: Spearman and Pearson correlation between the predictor's entropy and p̂'s entropy over states " +
    "with ≥ 2 samples (– when a side is constant); the entropy table gives ρ's cluster interval and a " +
    "within-cluster permutation p-value. R X: recall of event X.",
];

/** "6 families" / "12 programs": what an evaluation's intervals resample. */
function clusterWords(e: StoredEvaluation): string {
  const unit = e.predictors[0]?.clusterUnit;
  return unit === undefined
    ? "programs"
    : plural(unit.clusters, unit.unit, unit.unit === "family" ? "families" : "programs");
}

/** Where a set of evaluation sections sits on the page: an id prefix and a title suffix, empty for the main one. */
export interface SectionScope {
  readonly id: string;
  readonly title: string;
}

const MAIN_SCOPE: SectionScope = { id: "", title: "" };
const scoped = (scope: SectionScope, id: string): string => (scope.id === "" ? id : `${scope.id}-${id}`);

/** The headline section: one row per predictor, per-event F1 bars and the entropy table. */
export function evaluationSummarySection(e: StoredEvaluation, scope: SectionScope = MAIN_SCOPE): ReportSection {
  const rows = e.predictors.map(headlineRow);
  const meansRows = evaluationMeansRows(e.predictors);
  const weighed = concentrationLine(e.predictors[0]?.concentration, e.predictors[0]?.means?.unit);
  const notes = metricNotes(e.predictors[0]?.accuracyInterval.resamples ?? DEFAULT_RESAMPLES, clusterWords(e));
  const f1Bars = (metric: "f1" | "recall"): string =>
    barChart({
      title: `Per-event ${metric === "f1" ? "F1" : "recall"} by predictor`,
      categories: [...EVENT_TYPES],
      series: e.predictors.map((p) => ({ name: p.name, values: EVENT_TYPES.map((ev) => p.perEvent[ev][metric]) })),
      max: 1,
      yLabel: metric === "f1" ? "F1" : "recall",
    });
  const accuracyBars = barChart({
    title: "Accuracy against the ceiling and the majority baseline",
    categories: ["accuracy", "mode acc", "ceiling", "LOO ceiling", "majority", "macro-F1"],
    series: e.predictors.map((p) => ({
      name: p.name,
      values: [p.accuracy, p.modeAccuracy, p.ceiling, p.ceilingLoo, p.majority, p.macroF1],
    })),
    max: 1,
  });
  return {
    id: scoped(scope, "evaluation"),
    title: `Next-event prediction${scope.title}`,
    html: () =>
      [
        `<p>${escapeXml(contextLine(e))}</p>`,
        `<div class="scroll">${htmlTable({ headers: HEADLINE_HEADERS, rows, numeric: HEADLINE_NUMERIC })}</div>`,
        ...(meansRows.length === 0
          ? []
          : [
              `<p>${escapeXml(weighed)}</p>`,
              `<div class="scroll">${htmlTable({ headers: MEANS_HEADERS, rows: meansRows, numeric: MEANS_NUMERIC })}</div>`,
            ]),
        `<ul class="note">${notes.map((n) => `<li>${escapeXml(n)}</li>`).join("")}</ul>`,
        `<div class="charts"><figure>${accuracyBars}<figcaption>Ceiling and majority are properties of the ` +
          "test states; they are the same for every predictor.</figcaption></figure>",
        `<figure>${f1Bars("f1")}<figcaption>Missing bars: the event neither occurred nor was predicted.</figcaption></figure>`,
        `<figure>${f1Bars("recall")}<figcaption>Recall per event; rare events (GoUnblock, GoSched, ` +
          "GoEnd) are where predictors fail first.</figcaption></figure></div>",
        `<h3>Entropy against real nondeterminism</h3>`,
        htmlTable({
          headers: ENTROPY_HEADERS,
          rows: e.predictors.map(entropyRow),
          numeric: numericFrom(ENTROPY_HEADERS.length, 1),
        }),
      ].join("\n"),
    markdown: () =>
      [
        contextLine(e),
        markdownTable(HEADLINE_HEADERS, rows, HEADLINE_NUMERIC),
        ...(meansRows.length === 0 ? [] : [weighed, markdownTable(MEANS_HEADERS, meansRows, MEANS_NUMERIC)]),
        notes.map((n) => `- ${n}`).join("\n"),
        "### Entropy against real nondeterminism",
        markdownTable(ENTROPY_HEADERS, e.predictors.map(entropyRow), numericFrom(ENTROPY_HEADERS.length, 1)),
      ].join("\n\n"),
    json: () => ({
      evalRunId: e.id,
      createdAt: e.createdAt,
      abstraction: e.abstraction,
      holdout: e.holdout,
      states: e.states,
      samples: e.samples,
      programs: e.programs,
      predictors: e.predictors,
      comparisons: e.comparisons,
    }),
  };
}

/** Paired comparisons: cluster-bootstrap CI and cluster sign-flip p-value of the accuracy difference, McNemar labelled. */
export function comparisonsSection(e: StoredEvaluation, scope: SectionScope = MAIN_SCOPE): ReportSection {
  const rows = e.comparisons.map(comparisonRow);
  const leads = e.comparisons.flatMap(programLeadLines);
  const note =
    `The interval and the sign-flip test resample ${clusterWords(e)}: samples of one program, and programs of one family, are correlated. ` +
    "The sign-flip test flips the sign of each cluster's summed accuracy difference (exact up to 16 clusters, else 2000 seeded patterns). " +
    "Programs ahead: on how many programs each predictor's accuracy exceeds the other's by more than 2 points " +
    "(pooled and per-family accuracy weigh a long program like many short ones, so a predictor can trail on several programs and still lead). " +
    "McNemar's p (exact binomial below 25 discordant samples, " +
    "χ² with continuity correction otherwise) treats every sample as independent and is shown for comparison " +
    "with tools that report it, not as evidence." +
    (leads.length === 0 ? "" : ` ${leads.join(". ")}.`);
  const numeric = [2, 3, 4, 6, 9];
  return {
    id: scoped(scope, "comparisons"),
    title: `Paired comparisons${scope.title}`,
    html: () =>
      rows.length === 0
        ? `<p class="note">Only one predictor was evaluated; nothing to compare.</p>`
        : `${htmlTable({ headers: COMPARISON_HEADERS, rows, numeric })}\n<p class="note">${escapeXml(note)}</p>`,
    markdown: () =>
      rows.length === 0
        ? "Only one predictor was evaluated; nothing to compare."
        : `${markdownTable(COMPARISON_HEADERS, rows, numeric)}\n\n${note}`,
    json: () => e.comparisons,
  };
}

/** Detail of one predictor: per-event table, confusion heatmap, reliability diagram, entropy scatter. */
export function predictorDetailSection(
  p: PredictorEvaluation,
  index: number,
  scope: SectionScope = MAIN_SCOPE,
): ReportSection {
  const confusion = heatmap({
    title: `Confusion matrix of ${p.name} (rows observed, columns predicted)`,
    rowLabels: [...EVENT_TYPES],
    columnLabels: [...EVENT_TYPES],
    values: p.confusion,
    rowAxis: "observed ↓",
    columnAxis: "predicted →",
    normalize: "row",
  });
  const reliability = reliabilityDiagram({ title: `Reliability diagram of ${p.name}`, bins: p.reliability });
  const scatter = scatterPlot({
    title: `Entropy of ${p.name} against empirical entropy, per state`,
    points: p.entropyPoints.map((pt) => ({ x: pt.empirical, y: pt.predicted })),
    xLabel: "H(p̂) bits",
    yLabel: "H(q) bits",
    xMax: Math.log2(6),
    yMax: Math.log2(6),
  });
  const summary =
    `accuracy ${fixed(p.accuracy)} (ceiling ${fixed(p.ceiling)}, leave-one-run-out ${fixed(p.ceilingLoo)})` +
    (p.otherRunsAccuracy === undefined ? "" : `, on the runs it did not read ${fixed(p.otherRunsAccuracy)}`) +
    `, ECE ${estimateWithInterval(p.ece, p.eceInterval)}, ` +
    `config ${p.configHash}`;
  const scatterCaption = `${p.entropyStates} states with ≥ 2 samples; dashed: y = x. Spearman ρ ${fixed(p.entropySpearman)}.`;
  return {
    id: scoped(scope, `predictor-${index + 1}-${slug(p.name)}`),
    title: `Predictor ${p.name}${scope.title}`,
    html: () =>
      [
        `<p>${escapeXml(summary)}</p>`,
        htmlTable({ headers: PER_EVENT_HEADERS, rows: perEventRows(p), numeric: [1, 2, 3, 4, 5] }),
        `<div class="charts">`,
        `<figure>${confusion}<figcaption>Shade: share of the row (recall-like); numbers: samples.</figcaption></figure>`,
        `<figure>${reliability}<figcaption>Bars: accuracy per confidence bin; orange outline: ` +
          "gap to the bin's mean confidence; dashed: perfect calibration.</figcaption></figure>",
        `<figure>${scatter}<figcaption>${escapeXml(scatterCaption)}</figcaption></figure>`,
        `</div>`,
      ].join("\n"),
    markdown: () =>
      [
        summary,
        markdownTable(PER_EVENT_HEADERS, perEventRows(p), [1, 2, 3, 4, 5]),
        "Confusion matrix (rows observed, columns predicted):",
        markdownTable(
          ["observed \\ predicted", ...EVENT_TYPES],
          p.confusion.map((row, i) => [EVENT_TYPES[i]!, ...row.map(count)]),
          numericFrom(7, 1),
        ),
      ].join("\n\n"),
    json: () => ({ name: p.name, configHash: p.configHash }),
  };
}

/** All sections of a stored evaluation, in page order; `scope` tells apart the sections of several evaluations on one page. */
export function evaluationSections(e: StoredEvaluation, scope: SectionScope = MAIN_SCOPE): ReportSection[] {
  return [
    evaluationSummarySection(e, scope),
    comparisonsSection(e, scope),
    ...e.predictors.map((p, i) => predictorDetailSection(p, i, scope)),
  ];
}
