// Stage report: the HTML, Markdown and JSON report of the run — the overview with every test
// set side by side, the bugs, each evaluation's sections (the CV scoreboard beside the
// in-distribution holdout's), the rollouts and the leak tables.

import { existsSync } from "node:fs";
import { analyseLeaks } from "../../leaks/index.js";
import { listEvaluations, loadEvaluation, type StoredEvaluation } from "../../eval/index.js";
import {
  evaluationHistorySection,
  evaluationSections,
  writeReport,
  bugSection,
  crossValidationSection,
  leakSection,
  overviewSection,
  reportPictures,
  rolloutSection,
  type SectionScope,
  type CrossValidationBoard,
  type OverviewInput,
} from "../../report/index.js";
import { listRolloutRuns, loadRolloutReport } from "../../rollout/index.js";
import type { StageDescriptor } from "../stage.js";
import type { LeakSummary, RolloutSummary } from "../types.js";

/** One evaluated test set of the run, as the report stage gets it. */
export interface ReportedEvaluation {
  readonly scope: SectionScope;
  readonly evalRunId: number;
  /** The sampled rollout run, then the greedy one (none when the rollout did not run). */
  readonly rolloutRunIds: readonly number[];
  readonly rollout: RolloutSummary | null;
}

export interface ReportInput {
  readonly overview: Omit<OverviewInput, "stages">;
  readonly evaluations: readonly ReportedEvaluation[];
  /** The CV stage's scoreboard, shown right after the in-distribution holdout's summary and comparisons (null: none). */
  readonly crossValidation: CrossValidationBoard | null;
  /** Full spec → shown name, e.g. "student:/abs/adapters/ce" → "student:ce". */
  readonly shownNames: Readonly<Record<string, string>>;
  readonly leaks: LeakSummary | null;
  readonly out: string;
  readonly title: string;
  readonly source: string;
}

export const reportStage: StageDescriptor<ReportInput, { readonly reportPath: string }> = {
  name: "report",
  work: async (input, _say, context) => {
    const rename = (name: string): string => input.shownNames[name] ?? name;
    const shown = (stored: StoredEvaluation): StoredEvaluation => ({
      ...stored,
      predictors: stored.predictors.map((p) => ({ ...p, name: rename(p.name) })),
      comparisons: stored.comparisons.map((c) => ({ ...c, a: rename(c.a), b: rename(c.b) })),
    });
    const rolloutRuns = listRolloutRuns(context.db);
    const sections = input.evaluations.flatMap((e, i) => {
      const runs = e.rolloutRunIds.flatMap((id) => rolloutRuns.filter((r) => r.id === id));
      const sampled = e.rolloutRunIds[0];
      const [summary, comparisons, ...details] = evaluationSections(
        shown(loadEvaluation(context.db, e.evalRunId)),
        e.scope,
      );
      const beside = i === 0 && input.crossValidation !== null ? [crossValidationSection(input.crossValidation)] : [];
      return [
        ...[summary, comparisons].filter((s) => s !== undefined),
        ...beside,
        ...details,
        rolloutSection(
          runs,
          sampled === undefined ? null : loadRolloutReport(context.db, sampled),
          e.rollout?.predictor,
          e.scope,
        ),
      ];
    });
    const history = listEvaluations(context.db).map((e) => ({
      ...e,
      predictors: e.predictors.map((p) => ({ ...p, name: rename(p.name) })),
    }));
    const main = input.evaluations[0]?.evalRunId ?? 0;
    const leakAnalysis = input.leaks === null ? null : await analyseLeaks(context.db, { save: false });
    const all = [
      overviewSection({ ...input.overview, stages: context.timings }),
      ...(leakAnalysis === null ? [] : [bugSection(leakAnalysis, reportPictures(context.db, leakAnalysis))]),
      ...sections,
      evaluationHistorySection(history, main),
      leakSection(leakAnalysis, input.leaks),
    ];
    const written = writeReport(all, input.out, {
      title: input.title,
      generatedAt: new Date().toISOString(),
      source: input.source,
    });
    return { output: { reportPath: written.html }, note: written.html };
  },
  stillValid: (output) => existsSync(output.reportPath),
};
