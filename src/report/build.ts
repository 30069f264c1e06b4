// Assembling the report from a database: the sections available there, in page order.
// Later stages (leaks, rollouts, fidelity) add their section builders to this list. A
// database with a collection and no evaluation gets a page of its own: the collection, its
// bugs first, then the leak tables, races and flaky tests.

import { NoEvaluationError, listEvaluations, loadEvaluation } from "../eval/index.js";
import { analyseLeaks, type LeakAnalysis } from "../leaks/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { collectionSummary } from "./collection.js";
import { collectionOverviewSection, collectionProgramsSection } from "./sections/collection.js";
import { evaluationSections } from "./sections/evaluation.js";
import { evaluationHistorySection } from "./sections/history.js";
import { bugSection, type BugPictures } from "./sections/bugs.js";
import { flakySection, leakSection } from "./sections/leakTables.js";
import { reportPictures } from "./pictures.js";
import { listRolloutRuns } from "../rollout/index.js";
import { rolloutSurvivalSection } from "./sections/rollout.js";
import { listFidelityRuns } from "../fidelity/index.js";
import { fidelitySection } from "./sections/fidelity.js";
import type { ReportSection } from "./types.js";

export interface ReportSourceOptions {
  /** The eval run to report (default: the latest). */
  readonly evalRunId?: number;
}

/** Sections for everything the database holds that a report covers. */
export function reportSections(
  db: SchedlabDatabase,
  options: ReportSourceOptions = {},
): { sections: ReportSection[]; evalRunId: number } {
  const evaluation = loadEvaluation(db, options.evalRunId);
  const sections = [...evaluationSections(evaluation), evaluationHistorySection(listEvaluations(db), evaluation.id)];
  const rollouts = listRolloutRuns(db);
  if (rollouts.length > 0) sections.push(rolloutSurvivalSection(rollouts));
  const fidelityRuns = listFidelityRuns(db);
  if (fidelityRuns.length > 0) sections.push(fidelitySection(fidelityRuns));
  return { sections, evalRunId: evaluation.id };
}

/** Whether the database holds an evaluation to report (else `collectionReportSections`). */
export function hasEvaluation(db: SchedlabDatabase): boolean {
  return listEvaluations(db, 1).length > 0;
}

export interface CollectionReportOptions {
  /** The leak analysis of the database, when the caller has made it (a hunt); else made here, not stored. */
  readonly analysis?: LeakAnalysis;
  /** The bugs' pictures (default: reportPictures). */
  readonly pictures?: BugPictures;
}

/**
 * The page of a collection without an evaluation (`collect`, `hunt`): the overview of what
 * was collected, with a word on what prediction needs; the bugs, proven first, with their
 * views; the goroutines, races and crashes; the flaky tests; the table per program. A
 * database without programs has nothing to report.
 */
export async function collectionReportSections(
  db: SchedlabDatabase,
  options: CollectionReportOptions = {},
): Promise<ReportSection[]> {
  const collection = collectionSummary(db);
  if (collection.programs.length === 0) {
    throw new NoEvaluationError(
      "the database holds no collection and no evaluation",
      "Collect first with the same --db: `schedlab hunt ./...` or `schedlab collect PATH`; `schedlab run` or `schedlab eval` add the prediction sections.",
    );
  }
  const analysis = options.analysis ?? (await analyseLeaks(db, { save: false }));
  return [
    collectionOverviewSection(collection, analysis),
    bugSection(analysis, options.pictures ?? reportPictures(db, analysis)),
    leakSection(analysis, null),
    flakySection(analysis),
    collectionProgramsSection(collection, analysis),
  ];
}
