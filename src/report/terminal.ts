// Plain-text tables for the terminal (`schedlab eval` without --json).

import type { EvaluationResult } from "../eval/index.js";
import { plural } from "../core/index.js";
import {
  COMPARISON_HEADERS,
  comparisonRow,
  concentrationLine,
  evaluationMeansRows,
  HEADLINE_HEADERS,
  headlineRow,
  MEANS_HEADERS,
  programLeadLines,
} from "./sections/evaluationTables.js";

/** Left-aligns the first column, right-aligns the rest, two spaces between columns. */
export function textTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max([...h].length, ...rows.map((r) => [...(r[i] ?? "")].length)));
  const pad = (cell: string, i: number): string => {
    const gap = " ".repeat(widths[i]! - [...cell].length);
    return i === 0 ? cell + gap : gap + cell;
  };
  const render = (cells: readonly string[]): string => cells.map(pad).join("  ").trimEnd();
  return [render(headers), render(widths.map((w) => "─".repeat(w))), ...rows.map(render)].join("\n");
}

/** The headline table and, with two or more predictors, the comparison table. */
export function evaluationText(result: EvaluationResult): string {
  const first = result.predictors[0];
  const lines = [
    `abstraction ${result.abstraction} · holdout ${result.holdout}` +
      (first === undefined
        ? ""
        : ` · ${plural(first.states, "state")}, ${plural(first.samples, "sample")}, ${plural(first.programs, "program")}`),
    "",
    textTable(HEADLINE_HEADERS, result.predictors.map(headlineRow)),
  ];
  const means = evaluationMeansRows(result.predictors);
  if (means.length > 0) {
    lines.push("", concentrationLine(first?.concentration, first?.means?.unit), textTable(MEANS_HEADERS, means));
  }
  if (result.comparisons.length > 0) {
    lines.push("", textTable(COMPARISON_HEADERS, result.comparisons.map(comparisonRow)));
    const leads = result.comparisons.flatMap(programLeadLines);
    if (leads.length > 0) lines.push("", ...leads);
  }
  return `${lines.join("\n")}\n`;
}
