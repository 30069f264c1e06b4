// Assembling the report from a database: the sections available there, in page order.
// Later stages (leaks, rollouts, fidelity) add their section builders to this list.

import { listEvaluations, loadEvaluation } from "../eval/store.js";
import type { SchedlabDatabase } from "../store/index.js";
import { evaluationSections } from "./sections/evaluation.js";
import { evaluationHistorySection } from "./sections/history.js";
import { listRolloutRuns } from "../rollout/store.js";
import { rolloutSurvivalSection } from "./sections/rollout.js";
import { listFidelityRuns } from "../fidelity/store.js";
import { fidelitySection } from "./sections/fidelity.js";
import type { ReportSection } from "./types.js";

export interface ReportSourceOptions {
  /** The eval run to report (default: the latest). */
  readonly evalRunId?: number;
}

/** Sections for everything the database holds that a report covers. */
export function reportSections(db: SchedlabDatabase, options: ReportSourceOptions = {}): { sections: ReportSection[]; evalRunId: number } {
  const evaluation = loadEvaluation(db, options.evalRunId);
  const sections = [...evaluationSections(evaluation), evaluationHistorySection(listEvaluations(db), evaluation.id)];
  const rollouts = listRolloutRuns(db);
  if (rollouts.length > 0) sections.push(rolloutSurvivalSection(rollouts));
  const fidelityRuns = listFidelityRuns(db);
  if (fidelityRuns.length > 0) sections.push(fidelitySection(fidelityRuns));
  return { sections, evalRunId: evaluation.id };
}
