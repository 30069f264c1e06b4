// How `leaks` shows a baseline held against its findings: a text section after the
// findings (what is accepted and why, what is new, which entries are stale) and the
// "baseline" object of --json (docs/ci.md, "Baselines"). Pure.

import type { BaselineEntry, BaselineMatch } from "./baseline.js";
import type { CountedItem } from "./fingerprints.js";

function where(item: { readonly program: string; readonly test: string | null }): string {
  return item.test === null ? item.program : `${item.program}  ${item.test}`;
}

function itemLine(item: CountedItem): string {
  return `  [${item.fingerprint}] ${where(item)}: ${item.summary}`;
}

function staleLine(entry: BaselineEntry): string {
  return `  [${entry.fingerprint}] ${entry.kind}  ${where(entry)}${entry.summary === "" ? "" : `: ${entry.summary}`} (reason: ${entry.reason})`;
}

/** The text section: counts first, then the new items, the accepted ones with their reasons, and the stale entries. */
export function formatBaselineStatus(match: BaselineMatch): string {
  const lines = [
    `Baseline ${match.file}: ${match.fresh.length} new, ${match.baselined.length} accepted (shown above, ` +
      `not counted by the gates), ${match.stale.length} stale.`,
  ];
  if (match.fresh.length > 0)
    lines.push("New since the baseline (counted by the gates):", ...match.fresh.map(itemLine));
  if (match.baselined.length > 0)
    lines.push(
      "Accepted by the baseline:",
      ...match.baselined.map(({ item, entry }) => `${itemLine(item)} (reason: ${entry.reason})`),
    );
  if (match.stale.length > 0) {
    lines.push(
      "Stale entries (they match nothing now: fixed, or not seen in these runs; remove them, or rewrite the file with --save-baseline):",
      ...match.stale.map(staleLine),
    );
  }
  return lines.join("\n");
}

/** The "baseline" object of --json. */
export function baselineJson(match: BaselineMatch): Record<string, unknown> {
  return {
    file: match.file,
    new: match.fresh.map((i) => ({
      fingerprint: i.fingerprint,
      kind: i.kind,
      program: i.program,
      test: i.test,
      summary: i.summary,
    })),
    accepted: match.baselined.map(({ item, entry }) => ({
      fingerprint: item.fingerprint,
      kind: item.kind,
      program: item.program,
      test: item.test,
      summary: item.summary,
      reason: entry.reason,
    })),
    stale: match.stale.map((e) => ({
      fingerprint: e.fingerprint,
      kind: e.kind,
      program: e.program,
      test: e.test,
      summary: e.summary,
      reason: e.reason,
    })),
  };
}
