// The Markdown document and a Markdown table helper.

import { escapeMarkdownCell } from "./escape.js";
import type { ReportMeta, ReportSection } from "./types.js";

/** A GitHub-flavoured Markdown table; `numeric` columns are right-aligned. */
export function markdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  numeric: readonly number[] = [],
): string {
  const right = new Set(numeric);
  const line = (cells: readonly string[]): string => `| ${cells.map(escapeMarkdownCell).join(" | ")} |`;
  const rule = `| ${headers.map((_, i) => (right.has(i) ? "---:" : "---")).join(" | ")} |`;
  return [line(headers), rule, ...rows.map(line)].join("\n");
}

/** The whole document: title, source line, then each section under "## title". */
export function markdownDocument(meta: ReportMeta, sections: readonly ReportSection[]): string {
  const parts = [`# ${meta.title}`, `Generated ${meta.generatedAt} · ${meta.source}`];
  for (const s of sections) parts.push(`## ${s.title}`, s.markdown().trim());
  return `${parts.join("\n\n")}\n`;
}
