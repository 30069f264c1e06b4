// The pipeline's headline numbers: per-predictor summaries, the best student (chosen on
// validation), the leak summary, and the lines `schedlab run` prints (with the CV line). Pure.

import type { PredictorEvaluation } from "../eval/index.js";
import { kindCounts, type LeakAnalysis, type LeakScoreReport } from "../leaks/index.js";
import { accuracyMeansText, crossValidationLine, estimateWithInterval, halfSamplesText } from "../report/index.js";
import { EVENT_TYPES, fixed, MISSING, pct, pctInterval, type EventType } from "../core/index.js";
import type { BestStudent, LeakSummary, PipelineSummary, PredictorSummary, SectionSummary } from "./types.js";

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** Headline numbers of each evaluated predictor; students get the short name "student:NAME". */
export function predictorSummaries(
  predictors: readonly PredictorEvaluation[],
  students: readonly { name: string; path: string }[],
): PredictorSummary[] {
  return predictors.map((p) => {
    const student = students.find((s) => p.name === `student:${s.path}`);
    const recall = Object.fromEntries(EVENT_TYPES.map((e) => [e, finite(p.perEvent[e].recall)])) as Record<
      EventType,
      number | null
    >;
    return {
      name: student === undefined ? p.name : `student:${student.name}`,
      spec: p.name,
      accuracy: p.accuracy,
      accuracyInterval: p.accuracyInterval,
      ...(p.otherRunsAccuracy === undefined ? {} : { otherRunsAccuracy: p.otherRunsAccuracy }),
      ceiling: p.ceiling,
      ceilingLoo: p.ceilingLoo,
      majority: p.majority,
      ece: p.ece,
      eceInterval: p.eceInterval,
      macroF1: p.macroF1,
      ...(p.means === undefined ? {} : { means: p.means }),
      ...(p.concentration === undefined ? {} : { concentration: p.concentration }),
      recall,
    };
  });
}

/**
 * The student with the highest accuracy on the validation families (ties: the first trained),
 * or null when none was trained. Test figures never enter the choice, so the headline and the
 * rollout are not selected on the data they report.
 */
export function bestStudentOf(
  students: readonly { readonly name: string; readonly path: string; readonly validationAccuracy: number | null }[],
): BestStudent | null {
  let best: (typeof students)[number] | null = null;
  for (const s of students) {
    if (best === null || (s.validationAccuracy ?? -1) > (best.validationAccuracy ?? -1)) best = s;
  }
  return best === null
    ? null
    : {
        name: `student:${best.name}`,
        spec: `student:${best.path}`,
        selectedBy: "validation accuracy",
        validationAccuracy: best.validationAccuracy,
      };
}

export function leakSummaryOf(analysis: LeakAnalysis, score: LeakScoreReport): LeakSummary {
  const own = score.detectors.find((d) => d.detector === "schedlab");
  return {
    bugs: analysis.bugs.filter((b) => b.gating).length,
    provenBugs: analysis.bugs.filter((b) => b.gating && b.verdict === "proven").length,
    potentialDeadlocks: analysis.potentialDeadlocks.length,
    findings: analysis.findings.filter((f) => f.gating).length,
    proven: analysis.findings.filter((f) => f.gating && f.verdict === "proven").length,
    otherKinds: kindCounts(analysis.findings, { blockedForever: false }),
    programsWithFindings: analysis.programs.filter((p) => p.findings.some((f) => f.gating)).length,
    programsAnalysed: analysis.programs.length,
    precision: own?.score.overall.precision ?? null,
    recall: own?.score.overall.recall ?? null,
    falsePositivesOnClean: own?.score.falsePositivesOnClean ?? 0,
    labelledPrograms: score.labelledPrograms,
  };
}

function headlineLine(section: SectionSummary, where: string, abstraction: string): string {
  const best = section.best === null ? undefined : section.predictors.find((p) => p.name === section.best!.name);
  const families = `${section.families.test} ${section.families.test === 1 ? "family" : "families"}`;
  return best === undefined
    ? `best student: none trained; ${section.testPrograms.length} ${where} programs (${families}, ${abstraction} states)`
    : `best student ${best.name} (chosen on validation): accuracy ${pct(best.accuracy)} ${pctInterval(best.accuracyInterval)} pooled` +
        halfSamplesText(best.concentration) +
        (best.means === undefined ? "" : `, ${accuracyMeansText(best.means)}`) +
        (best.otherRunsAccuracy === undefined
          ? " "
          : `, ${pct(best.otherRunsAccuracy)} on the runs it did not read, `) +
        `vs majority ${pct(best.majority)} vs ceiling ${pct(best.ceiling)} (leave-one-run-out ${pct(best.ceilingLoo)}) ` +
        `on ${section.testPrograms.length} ${where} programs (${families}, ${abstraction} states)`;
}

/** One line per test corpus: its best student and the baselines beside it. */
function externalLine(section: PipelineSummary["external"][number]): string {
  const best = section.best === null ? undefined : section.predictors.find((p) => p.name === section.best!.name);
  const others = section.predictors
    .filter((p) => p !== best)
    .map((p) => `${p.name} ${pct(p.accuracy)}`)
    .join(", ");
  const bestText =
    best === undefined
      ? "no student"
      : `${best.name} ${pct(best.accuracy)} pooled` +
        (best.means === undefined ? "" : ` (${accuracyMeansText(best.means)})`) +
        ` (ECE ${estimateWithInterval(best.ece, best.eceInterval)})`;
  return (
    `test corpus ${section.corpus.label} (${section.testPrograms.length} programs): ${bestText}; ${others}; ` +
    `ceiling ${pct(section.predictors[0]?.ceiling)}, leave-one-run-out ${pct(section.predictors[0]?.ceilingLoo)}`
  );
}

/** The summary lines printed at the end of `schedlab run` (the CV stage's first when it ran, then five, one per test corpus), before where the report is. */
export function summaryLines(summary: PipelineSummary): string[] {
  const best = summary.best === null ? null : (summary.predictors.find((p) => p.name === summary.best!.name) ?? null);
  const reference = best ?? summary.predictors[0];
  const baselines = summary.predictors.filter((p) => !p.spec.startsWith("student:"));
  const students = summary.predictors.filter((p) => p.spec.startsWith("student:"));
  const leaks = summary.leaks;
  const eceList = summary.predictors.map((p) => `${p.name} ${estimateWithInterval(p.ece, p.eceInterval)}`).join(", ");
  const macroF1 = reference === undefined ? "" : `; macro-F1 of ${reference.name} ${fixed(reference.macroF1)}`;
  // The cross-validation leads: every program tested once, by predictors that never saw its family;
  // the single holdout beside it moves with the families it happens to draw.
  const lines = [
    ...(summary.crossValidation === null
      ? []
      : [crossValidationLine(summary.crossValidation, summary.best?.name ?? null)]),
    `holdout: ${headlineLine(summary, "held-out", summary.abstraction)}`,
    `students: ${students.map((p) => `${p.name} ${pct(p.accuracy)}`).join(", ") || MISSING}; ` +
      `baselines: ${baselines.map((p) => `${p.name} ${pct(p.accuracy)}`).join(", ")}`,
    `calibration (ECE, lower is better): ${eceList}${macroF1}`,
    ...summary.external.map(externalLine),
    leaks === null
      ? "leaks: not analysed (see the warnings above)"
      : `leaks found: ${leaks.bugs} bugs (${leaks.provenBugs} proven) leaving ${leaks.findings} goroutines ` +
        `blocked forever in ${leaks.programsWithFindings} of ${leaks.programsAnalysed} programs` +
        `${leaks.otherKinds === "" ? "" : `; also ${leaks.otherKinds}`}` +
        `${leaks.potentialDeadlocks === 0 ? "" : `; ${leaks.potentialDeadlocks} potential deadlocks`}; ${
          leaks.labelledPrograms === 0
            ? "no program has a schedlab.json manifest, so nothing is scored against labels"
            : `vs labels precision ${pct(leaks.precision)}, recall ${pct(leaks.recall)}, ${leaks.falsePositivesOnClean} false positives on clean programs`
        }`,
    summary.rollout === null
      ? "rollout: not run (see the warnings above)"
      : `rollout of ${summary.rollout.predictor} (${summary.rollout.steps} steps, sampled among the events the state machine allows): ` +
        `greedy mean survival ${summary.rollout.greedy.meanSurvival.toFixed(2)}, ` +
        `${pct(summary.rollout.greedy.reachedK)} reach k; ` +
        `sampled ${summary.rollout.meanSurvival.toFixed(2)}, ${pct(summary.rollout.reachedK)} reach k, ` +
        `k-step accuracy ${pct(summary.rollout.kStepAccuracy)}`,
  ];
  return lines;
}
