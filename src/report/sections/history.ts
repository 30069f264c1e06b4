// Report section listing recent eval runs, so a report of the latest run still shows
// what else the database holds (other abstractions, holdouts, predictors).

import type { EvaluationSummary } from "../../eval/index.js";
import { escapeXml } from "../escape.js";
import { fixed } from "../../core/index.js";
import { htmlTable } from "../html.js";
import { markdownTable } from "../markdown.js";
import type { ReportSection } from "../types.js";

const HEADERS = [
  "run",
  "created",
  "abstraction",
  "holdout",
  "states",
  "samples",
  "programs",
  "ceiling",
  "accuracy by predictor",
] as const;
const NUMERIC = [0, 4, 5, 6, 7];

function row(s: EvaluationSummary): string[] {
  return [
    String(s.id),
    s.createdAt.replace("T", " ").replace(/\.\d+Z$/, "Z"),
    s.abstraction,
    s.holdout,
    String(s.states),
    String(s.samples),
    String(s.programs),
    fixed(s.ceiling),
    s.predictors.map((p) => `${p.name} ${fixed(p.accuracy)}`).join(", "),
  ];
}

/** Recent eval runs, newest first; `reported` is the run the rest of the report shows. */
export function evaluationHistorySection(runs: readonly EvaluationSummary[], reported: number): ReportSection {
  const rows = runs.map(row);
  const note = `This report details eval run ${reported}; render another with \`schedlab report --eval-run ID\`.`;
  return {
    id: "eval-history",
    title: "Evaluation runs in this database",
    html: () =>
      `<p class="note">${escapeXml(note)}</p>\n<div class="scroll">${htmlTable({ headers: HEADERS, rows, numeric: NUMERIC })}</div>`,
    markdown: () => `${note}\n\n${markdownTable(HEADERS, rows, NUMERIC)}`,
    json: () => runs,
  };
}
