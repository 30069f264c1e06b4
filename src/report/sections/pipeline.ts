// Report sections of `schedlab run`: the overview (headline numbers, stage timings,
// settings, warnings) and rollout survival. The bugs and leak tables are bugs.ts's and leakTables.ts's.

import type { BootstrapInterval } from "../../metrics/index.js";
import type { RolloutReport, StoredRolloutRun } from "../../rollout/index.js";
import { escapeXml } from "../escape.js";
import { fixed, MISSING, pct, pctInterval, plural, EVENT_TYPES } from "../../core/index.js";
import { htmlTable } from "../html.js";
import { markdownTable } from "../markdown.js";
import { barChart } from "../svg/index.js";
import { accuracyMeansText, bootstrapIntervalCell, estimateWithInterval, halfSamplesText } from "./evaluationTables.js";
import { crossValidationLine, type CrossValidationBoard } from "./crossValidation.js";
import type { SampleConcentration, WeightedFigures } from "../../eval/index.js";
import type { ReportSection } from "../types.js";

/** One evaluated test set as the overview shows it: the in-distribution holdout or a test corpus. */
export interface OverviewEvaluation {
  /** "in-distribution holdout" or "test corpus NAME". */
  readonly title: string;
  readonly holdout: string;
  readonly testPrograms: readonly string[];
  readonly families: { readonly train: number; readonly validation: number; readonly test: number };
  readonly evalRunId: number;
  /** The student chosen on validation, by its shown name, or null. */
  readonly best: string | null;
  readonly predictors: readonly OverviewPredictor[];
}

/** One predictor's headline numbers on a test set (`schedlab run`'s summary adds its spec and recall). */
export interface OverviewPredictor {
  readonly name: string;
  readonly accuracy: number;
  /** Cluster (family, or program) bootstrap 95 % interval of `accuracy`. */
  readonly accuracyInterval: BootstrapInterval;
  /** Accuracy on the runs it did not read its prefix from (PredictorEvaluation.otherRunsAccuracy); absent before it existed. */
  readonly otherRunsAccuracy?: number;
  readonly ceiling: number;
  /** Leave-one-run-out ceiling. */
  readonly ceilingLoo: number;
  readonly majority: number;
  readonly ece: number;
  /** Cluster bootstrap 95 % interval of `ece` (see PredictorEvaluation.eceInterval). */
  readonly eceInterval: BootstrapInterval;
  readonly macroF1: number;
  /** Accuracy, ECE and NLL with every family, and every program, counted once; absent before they existed. */
  readonly means?: WeightedFigures;
  /** How much of the pooled figures the largest programs hold. */
  readonly concentration?: SampleConcentration;
}

/** What the overview shows; the pipeline fills it in (the report stage does not depend on it). */
export interface OverviewInput {
  readonly programs: number;
  readonly abstraction: string;
  /** The in-distribution holdout first, then each test corpus. */
  readonly evaluations: readonly OverviewEvaluation[];
  /** The leave-family-out CV scoreboard, the headline when present (null: the stage did not run). */
  readonly crossValidation?: CrossValidationBoard | null;
  readonly leaks: {
    readonly findings: number;
    readonly programsWithFindings: number;
    readonly programsAnalysed: number;
    readonly precision: number | null;
    readonly recall: number | null;
    readonly falsePositivesOnClean: number;
  } | null;
  readonly rollout: {
    readonly predictor: string;
    readonly steps: number;
    readonly meanSurvival: number;
    readonly kStepAccuracy: number;
    readonly reachedK: number;
    readonly greedy: { readonly meanSurvival: number; readonly reachedK: number };
  } | null;
  readonly settings: {
    readonly corpus: string;
    readonly testCorpora: readonly string[];
    readonly quick: boolean;
    readonly runs: number;
    readonly timeoutMs: number;
    readonly studentModel: string;
  };
  readonly collected: {
    readonly programs: number;
    readonly executed: number;
    readonly skipped: number;
    readonly buildErrors: number;
  };
  readonly stages: readonly {
    readonly stage: string;
    readonly status: string;
    readonly elapsedMs: number;
    readonly note: string;
  }[];
  readonly warnings: readonly string[];
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function headline(input: OverviewInput): string[] {
  const lines: string[] = [];
  const main = input.evaluations[0];
  if (input.crossValidation !== undefined && input.crossValidation !== null) {
    lines.push(
      `Headline — ${crossValidationLine(input.crossValidation, main?.best ?? null)}. ` +
        "Every program is tested once, by predictors trained on folds without its family; the family and program " +
        "means weigh each family, and each program, once, where the pooled figure follows the longest programs.",
    );
  }
  for (const e of input.evaluations) {
    const best = e.predictors.find((p) => p.name === e.best);
    const where = `${plural(e.testPrograms.length, "program")} in ${plural(e.families.test, "family", "families")} (${e.title}, eval run ${e.evalRunId})`;
    const means = best?.means === undefined ? "" : accuracyMeansText(best.means);
    lines.push(
      best === undefined
        ? `No student could be trained; the baselines on ${where} are below.`
        : `On ${where}, the student chosen on validation, ${best.name}, ` +
            `predicts the next scheduling event with accuracy ${pct(best.accuracy)} ${pctInterval(best.accuracyInterval)} ` +
            `pooled${halfSamplesText(best.concentration)}` +
            (means === "" ? "" : `, ${means}`) +
            (best.otherRunsAccuracy === undefined
              ? ", "
              : ` (${pct(best.otherRunsAccuracy)} on the runs other than the one whose prefix it read), `) +
            `against ${pct(best.majority)} for always guessing the majority event and a ceiling ` +
            `of ${pct(best.ceiling)} (${pct(best.ceilingLoo)} leave-one-run-out: ` +
            "the most frequent next event of each state, which no predictor can beat)" +
            (best.means === undefined
              ? "."
              : `; ECE ${fixed(best.ece)} pooled, ${estimateWithInterval(best.means.ece.familyMean.estimate, best.means.ece.familyMean)} ` +
                `family mean, ${estimateWithInterval(best.means.ece.programMean.estimate, best.means.ece.programMean)} program mean.`),
    );
  }
  lines.push(`${input.programs} programs in all; ${input.abstraction} states; training and test never share a family.`);
  if (input.leaks !== null) {
    lines.push(
      `Leak detection found ${plural(input.leaks.findings, "goroutine")} blocked forever ` +
        `in ${input.leaks.programsWithFindings} of ${plural(input.leaks.programsAnalysed, "program")}; ` +
        `against the manifests' labels precision ${pct(input.leaks.precision)}, ` +
        `recall ${pct(input.leaks.recall)}, ${plural(input.leaks.falsePositivesOnClean, "false positive")} on ` +
        "clean programs.",
    );
  }
  if (input.rollout !== null) {
    lines.push(
      `Rolled out ${input.rollout.steps} steps, choosing only among the events the goroutine state machine allows ` +
        `(so a rollout ends early only when the program cannot go on), ${input.rollout.predictor} goes on ` +
        `for ${input.rollout.greedy.meanSurvival.toFixed(2)} steps on average greedily ` +
        `(${pct(input.rollout.greedy.reachedK)} reach step ${input.rollout.steps}) ` +
        `and ${input.rollout.meanSurvival.toFixed(2)} when sampled (${pct(input.rollout.reachedK)}).`,
    );
  }
  return lines;
}

const PREDICTOR_HEADERS = [
  "test set",
  "predictor",
  "accuracy",
  "95% CI",
  "other runs",
  "majority",
  "ceiling",
  "LOO ceiling",
  "gap to LOO ceiling (other runs)",
  "macro-F1",
  "ECE",
  "ECE 95% CI",
] as const;
const STAGE_HEADERS = ["stage", "status", "time", "what happened"] as const;

/** First section: the answer in a few sentences, every test set's predictors side by side, how the run went. */
export function overviewSection(input: OverviewInput): ReportSection {
  const rows = input.evaluations.flatMap((e) =>
    e.predictors.map((p) => [
      e.title,
      p.name === e.best ? `${p.name} (chosen)` : p.name,
      pct(p.accuracy),
      bootstrapIntervalCell(p.accuracyInterval),
      p.otherRunsAccuracy === undefined ? MISSING : pct(p.otherRunsAccuracy),
      pct(p.majority),
      pct(p.ceiling),
      pct(p.ceilingLoo),
      pct(p.ceilingLoo - (p.otherRunsAccuracy ?? p.accuracy)),
      fixed(p.macroF1),
      fixed(p.ece),
      bootstrapIntervalCell(p.eceInterval),
    ]),
  );
  const stageRows = input.stages.map((s) => [
    s.stage,
    s.status,
    s.status === "skipped" ? MISSING : seconds(s.elapsedMs),
    s.note,
  ]);
  const first = input.evaluations[0];
  const chart =
    first === undefined
      ? ""
      : barChart({
          title: `Accuracy of each predictor (${first.title}), with the ceilings and the majority baseline`,
          categories: first.predictors.map((p) => p.name),
          series: [
            { name: "accuracy", values: first.predictors.map((p) => p.accuracy) },
            { name: "LOO ceiling", values: first.predictors.map((p) => p.ceilingLoo) },
            { name: "majority", values: first.predictors.map((p) => p.majority) },
          ],
          max: 1,
          yLabel: "accuracy",
          width: Math.max(560, 110 * first.predictors.length + 120),
        });
  const testCorpora =
    input.settings.testCorpora.length === 0
      ? ""
      : `; test corpora ${input.settings.testCorpora.join(", ")} (never trained on)`;
  const familySplits = input.evaluations
    .map(
      (e) => `${e.title} ${e.families.train - e.families.validation} / ${e.families.validation} / ${e.families.test}`,
    )
    .join("; ");
  const settings =
    `Corpus ${input.settings.corpus}${input.settings.quick ? " (--quick: one program per family)" : ""}${testCorpora}; ` +
    `${input.settings.runs} runs per program, deadline ${seconds(input.settings.timeoutMs)}; ` +
    `${input.collected.programs} programs collected (${input.collected.executed} runs executed now, ` +
    `${input.collected.skipped} resumed` +
    `${input.collected.buildErrors > 0 ? `, ${input.collected.buildErrors} build errors` : ""}); ` +
    `students: ${input.settings.studentModel}. Families (train / validation / test): ${familySplits}.`;
  const warnings =
    input.warnings.length === 0
      ? ""
      : `<h3>Warnings</h3><ul>${input.warnings.map((w) => `<li>${escapeXml(w)}</li>`).join("")}</ul>`;
  const numeric = [2, 3, 4, 5, 6, 7, 8, 9, 10];
  return {
    id: "overview",
    title: "Overview",
    html: () =>
      [
        ...headline(input).map((line) => `<p>${escapeXml(line)}</p>`),
        `<div class="scroll">${htmlTable({ headers: PREDICTOR_HEADERS, rows, numeric })}</div>`,
        chart === ""
          ? ""
          : `<div class="charts"><figure>${chart}<figcaption>Accuracy against each run's observed next event ` +
            "on the held-out programs.</figcaption></figure></div>",
        `<h3>How this run went</h3><p class="note">${escapeXml(settings)}</p>`,
        htmlTable({ headers: STAGE_HEADERS, rows: stageRows, numeric: [2] }),
        warnings,
      ].join("\n"),
    markdown: () =>
      [
        ...headline(input),
        markdownTable(PREDICTOR_HEADERS, rows, numeric),
        settings,
        markdownTable(STAGE_HEADERS, stageRows, [2]),
        ...(input.warnings.length === 0 ? [] : ["Warnings:", input.warnings.map((w) => `- ${w}`).join("\n")]),
      ].join("\n\n"),
    json: () => input,
  };
}

const ROLLOUT_HEADERS = [
  "predictor",
  "temperature",
  "steps",
  "rollouts per prefix",
  "prefixes",
  "mean survival",
  "reach k",
  "k-step accuracy",
  "per-step accuracy",
  "L1",
  "KL",
] as const;

/**
 * Rollout survival: how long rolled-out events stay valid under the goroutine state machine.
 * `predictor` is the name shown (e.g. "student:kl" for a `student:/abs/path` spec); `scope`
 * tells apart the rollouts of several test sets on one page.
 */
export function rolloutSection(
  runs: readonly StoredRolloutRun[],
  report: RolloutReport | null,
  predictor = runs[0]?.predictor ?? "",
  scope: { readonly id: string; readonly title: string } = { id: "", title: "" },
): ReportSection {
  const id = scope.id === "" ? "rollout" : `${scope.id}-rollout`;
  const title = `Rollout survival${scope.title}`;
  const run = runs[0];
  if (run === undefined || report === null) {
    const text = "No rollout was run; see the warnings in the overview.";
    return { id, title, html: () => `<p>${escapeXml(text)}</p>`, markdown: () => text, json: () => null };
  }
  const rows = runs.map((r) => [
    predictor,
    r.temperature === 0 ? "0 (greedy)" : String(r.temperature),
    String(r.steps),
    String(r.samples),
    String(r.prefixes),
    fixed(r.meanSurvival, 2),
    pct(r.reachedK),
    pct(r.kStepAccuracy),
    pct(r.perStepAccuracy),
    fixed(r.l1),
    fixed(r.kl),
  ]);
  const histogram = Array.from({ length: run.steps + 1 }, () => 0);
  for (const prefix of report.prefixes) {
    const s = prefix.metrics.meanSurvival;
    if (Number.isFinite(s)) histogram[Math.min(run.steps, Math.max(0, Math.floor(s)))]! += 1;
  }
  const survival = barChart({
    title: "Prefixes by mean survival (steps before the first invalid event)",
    categories: histogram.map((_, i) => (i === run.steps ? `${i}` : `${i}–${i + 1}`)),
    series: [{ name: "prefixes", values: histogram }],
    yLabel: "prefixes",
    width: 520,
  });
  const events = barChart({
    title: "Event types: rolled out against the real continuations",
    categories: [...EVENT_TYPES],
    series: [
      { name: "rolled out", values: report.overall.rolledDistribution },
      { name: "real", values: report.overall.empiricalDistribution },
    ],
    max: 1,
    yLabel: "share",
    width: 520,
  });
  const intro =
    `${predictor} rolled out ${run.steps} steps from each of ${run.prefixes} held-out ` +
    `prefixes, ${run.samples} times ` +
    `sampled${runs.length > 1 ? " and once greedily (its most probable event every step)" : ""}; ` +
    "each step is checked by the goroutine state machine (no start of a goroutine that is not runnable, " +
    "no unblock of one that is not waiting, …).";
  return {
    id,
    title,
    html: () =>
      [
        `<p>${escapeXml(intro)}</p>`,
        htmlTable({ headers: ROLLOUT_HEADERS, rows, numeric: [2, 3, 4, 5, 6, 7, 8, 9, 10] }),
        `<div class="charts"><figure>${survival}<figcaption>Sampled rollouts: ` +
          "a prefix counts in the bin of its rollouts' mean survival; " +
          `the last bin survived all ${run.steps} steps.</figcaption></figure>`,
        `<figure>${events}<figcaption>L1 ${fixed(run.l1)} between the two distributions.</figcaption></figure></div>`,
      ].join("\n"),
    markdown: () => `${intro}\n\n${markdownTable(ROLLOUT_HEADERS, rows, [2, 3, 4, 5, 6, 7, 8, 9, 10])}`,
    json: () => ({ runs, survivalHistogram: histogram }),
  };
}
