// The pipeline's headline numbers: per-predictor summaries, the best student, the leak
// summary, and the five lines `schedlab run` prints. Pure.

import type { PredictorEvaluation } from "../eval/index.js";
import type { LeakAnalysis, LeakScoreReport } from "../leaks/index.js";
import { estimateWithInterval } from "../report/sections/evaluationTables.js";
import { EVENT_TYPES, type EventType } from "../trace/types.js";
import type { LeakSummary, PipelineSummary, PredictorSummary } from "./types.js";

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** Headline numbers of each evaluated predictor; students get the short name "student:NAME". */
export function predictorSummaries(predictors: readonly PredictorEvaluation[], students: readonly { name: string; path: string }[]): PredictorSummary[] {
  return predictors.map((p) => {
    const student = students.find((s) => p.name === `student:${s.path}`);
    const recall = Object.fromEntries(EVENT_TYPES.map((e) => [e, finite(p.perEvent[e].recall)])) as Record<EventType, number | null>;
    return {
      name: student === undefined ? p.name : `student:${student.name}`,
      spec: p.name,
      accuracy: p.accuracy,
      ceiling: p.ceiling,
      majority: p.majority,
      ece: p.ece,
      eceInterval: p.eceInterval,
      macroF1: p.macroF1,
      recall,
    };
  });
}

/** The most accurate student (ties: the first), or null when none was evaluated. */
export function bestStudentOf(predictors: readonly PredictorSummary[]): string | null {
  let best: PredictorSummary | null = null;
  for (const p of predictors) if (p.spec.startsWith("student:") && (best === null || p.accuracy > best.accuracy)) best = p;
  return best?.name ?? null;
}

export function leakSummaryOf(analysis: LeakAnalysis, score: LeakScoreReport): LeakSummary {
  const own = score.detectors.find((d) => d.detector === "schedlab");
  return {
    findings: analysis.findings.length,
    programsWithFindings: analysis.programs.filter((p) => p.findings.length > 0).length,
    programsAnalysed: analysis.programs.length,
    precision: own?.score.overall.precision ?? null,
    recall: own?.score.overall.recall ?? null,
    falsePositivesOnClean: own?.score.falsePositivesOnClean ?? 0,
    labelledPrograms: score.labelledPrograms,
  };
}

const pct = (x: number | null): string => (x === null || !Number.isFinite(x) ? "–" : `${(100 * x).toFixed(1)}%`);
const f3 = (x: number): string => (Number.isFinite(x) ? x.toFixed(3) : "–");

/** The five summary lines printed at the end of `schedlab run`, then where the report is. */
export function summaryLines(summary: PipelineSummary): string[] {
  const best = summary.predictors.find((p) => p.name === summary.bestStudent) ?? null;
  const reference = best ?? summary.predictors[0];
  const baselines = summary.predictors.filter((p) => !p.spec.startsWith("student:"));
  const students = summary.predictors.filter((p) => p.spec.startsWith("student:"));
  const leaks = summary.leaks;
  const lines = [
    best === null
      ? `best student: none trained; ${summary.testPrograms.length} held-out programs (${summary.abstraction} states)`
      : `best student ${best.name}: accuracy ${pct(best.accuracy)} vs majority ${pct(best.majority)} vs ceiling ${pct(best.ceiling)} on ${summary.testPrograms.length} held-out programs (${summary.abstraction} states)`,
    `students: ${students.map((p) => `${p.name} ${pct(p.accuracy)}`).join(", ") || "–"}; baselines: ${baselines.map((p) => `${p.name} ${pct(p.accuracy)}`).join(", ")}`,
    `calibration (ECE, lower is better): ${summary.predictors.map((p) => `${p.name} ${estimateWithInterval(p.ece, p.eceInterval)}`).join(", ")}${reference === undefined ? "" : `; macro-F1 of ${reference.name} ${f3(reference.macroF1)}`}`,
    leaks === null
      ? "leaks: not analysed (see the warnings above)"
      : `leaks found: ${leaks.findings} blocked-forever goroutines in ${leaks.programsWithFindings} of ${leaks.programsAnalysed} programs; ${
          leaks.labelledPrograms === 0
            ? "no program has a schedlab.json manifest, so nothing is scored against labels"
            : `vs labels precision ${pct(leaks.precision)}, recall ${pct(leaks.recall)}, ${leaks.falsePositivesOnClean} false positives on clean programs`
        }`,
    summary.rollout === null
      ? "rollout: not run (see the warnings above)"
      : `rollout of ${summary.rollout.predictor}: mean survival ${summary.rollout.meanSurvival.toFixed(2)} of ${summary.rollout.steps} steps, ${pct(summary.rollout.reachedK)} reach k, k-step accuracy ${pct(summary.rollout.kStepAccuracy)}`,
  ];
  return lines;
}
