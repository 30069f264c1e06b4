// Rendering findings and scores for a terminal (fixed-width tables) and as JSON.

import type { DetectorScore, LeakAnalysis, LeakScoreReport } from "./analyse.js";
import type { Counts, LeakScore } from "./score.js";
import type { LeakFinding } from "./types.js";

/** The formula behind pUnblockUpper, printed with every result. */
export const BOUND_FORMULA =
  "pUnblockUpper: one-sided 95% Clopper-Pearson upper bound on P(GoUnblock | blocked there), x = runsWoken of n = runsBlocked + runsWoken; with x = 0 it is 1 - 0.05^(1/n) (about 3/n).";

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => pad(c, widths[i])).join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** "main.go:12" from "main.worker /abs/path/main.go:12". */
function shortSite(site: string | null): string {
  if (site === null) return "-";
  const [fn, where] = site.includes(" ") ? [site.slice(0, site.lastIndexOf(" ")), site.slice(site.lastIndexOf(" ") + 1)] : ["", site];
  const file = where.slice(where.lastIndexOf("/") + 1);
  const name = fn.slice(fn.lastIndexOf("/") + 1);
  return name === "" ? file : `${name} ${file}`;
}

export function formatFindings(analysis: LeakAnalysis): string {
  if (analysis.findings.length === 0) {
    const analysed = analysis.programs.length;
    return `No leaked or deadlocked goroutines in ${analysed} program(s).` + (analysis.withoutRuns.length > 0 ? `\nNot analysed (no ingested runs; run schedlab ingest first): ${analysis.withoutRuns.join(", ")}` : "");
  }
  const rows = analysis.findings.map((f) => [
    f.program,
    f.goroutine,
    f.reason + (f.formal ? " *" : ""),
    f.kind,
    f.isRoot ? "(root)" : shortSite(f.creationSite),
    shortSite(f.blockingSite),
    `${f.runsBlocked}/${f.runsSeen}`,
    f.pUnblockUpper.toFixed(3),
    f.early.firstDepthAllRuns === null ? `${f.early.firstDepthAllBlockedRuns}†` : String(f.early.firstDepthAllRuns),
  ]);
  const notes = [
    `${analysis.findings.length} finding(s) in ${new Set(analysis.findings.map((f) => f.program)).size} of ${analysis.programs.length} program(s).`,
    "* select: the formal signature. blocked: runs where it ends blocked / runs it appears in (below 1: schedule-dependent).",
    "depth: first event index from which the signature holds in every run (†: only in the runs where it ends blocked).",
    BOUND_FORMULA,
  ];
  if (analysis.withoutRuns.length > 0) notes.push(`Not analysed (no ingested runs; run schedlab ingest first): ${analysis.withoutRuns.join(", ")}`);
  return `${table(["program", "goroutine", "reason", "kind", "created at", "blocked at", "blocked", "P(unblock)≤", "depth"], rows)}\n\n${notes.join("\n")}`;
}

/** The --json form: the contract fields first, then the rest of the finding. */
export function findingJson(f: LeakFinding): Record<string, unknown> {
  return {
    program: f.program,
    goroutine: f.goroutine,
    reason: f.reason,
    kind: f.kind,
    formal: f.formal,
    creationSite: f.creationSite,
    blockingSite: f.blockingSite,
    runsSeen: f.runsSeen,
    runsBlocked: f.runsBlocked,
    pUnblockUpper: f.pUnblockUpper,
    blockedFraction: f.blockedFraction,
    runsWoken: f.runsWoken,
    entry: f.entry,
    isRoot: f.isRoot,
    creationSiteKey: f.creationSiteKey,
    early: f.early,
  };
}

export function analysisJson(analysis: LeakAnalysis): Record<string, unknown> {
  return {
    findings: analysis.findings.map(findingJson),
    programs: analysis.programs.map((p) => ({ program: p.program, runs: p.runs, findings: p.findings.length })),
    withoutRuns: analysis.withoutRuns,
    bound: BOUND_FORMULA,
  };
}

function ratio(value: number | null): string {
  return value === null ? "-" : value.toFixed(3);
}

function countsRow(label: string, c: Counts): string[] {
  return [label, String(c.truePositives), String(c.falsePositives), String(c.missed), ratio(c.precision), ratio(c.recall), ratio(c.f1)];
}

const COUNT_HEADER = ["TP", "FP", "missed", "precision", "recall", "F1"];

function groupTable(title: string, groups: Readonly<Record<string, Counts>>): string {
  return `${title}\n${table([title.split(" ")[0], ...COUNT_HEADER], Object.entries(groups).map(([g, c]) => countsRow(g, c)))}`;
}

function scoreDetails(score: LeakScore): string {
  return [
    groupTable("reason (schedlab)", score.byReason),
    groupTable("bug class (schedlab)", score.byBugClass),
    `clean programs: ${score.cleanPrograms}, flagged: ${score.cleanProgramsFlagged}, false positives on them: ${score.falsePositivesOnClean}`,
  ].join("\n\n");
}

export function formatScore(report: LeakScoreReport): string {
  const rows = report.detectors.map((d: DetectorScore) => [...countsRow(d.detector, d.score.overall), `${d.programsCovered}/${report.labelledPrograms}`, String(d.score.falsePositivesOnClean)]);
  const own = report.detectors.find((d) => d.detector === "schedlab");
  const missedLines = (own?.score.programs ?? [])
    .filter((p) => p.missed.length > 0 || p.falsePositives.length > 0)
    .map((p) => `  ${p.program}: ${[...p.missed.map((e) => `missed ${e.site ?? e.creator} ${e.reason}`), ...p.falsePositives.map((f) => `FP ${f.siteKey ?? f.root} ${f.reason ?? "?"}`)].join("; ")}`);
  return [
    `${report.labelledPrograms} labelled program(s) scored, ${report.unlabelledPrograms} without a manifest.`,
    table(["detector", ...COUNT_HEADER, "covered", "FP on clean"], rows),
    own === undefined ? "" : scoreDetails(own.score),
    missedLines.length > 0 ? `schedlab misses and false positives:\n${missedLines.join("\n")}` : "",
  ].filter((s) => s !== "").join("\n\n");
}
