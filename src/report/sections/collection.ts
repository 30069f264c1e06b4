// The overview of a report made from a collection alone (no evaluation): what was collected
// — programs, runs by strategy and outcome, ingest, builds, budgeted hunts — with a plain word
// that the prediction sections need `schedlab run` or `schedlab eval`; and, at the end of the
// page, what the runs show per program. Pure: the collection and the leak analysis come in.

import { bugCounts, type LeakAnalysis } from "../../leaks/index.js";
import type { CollectedProgram, CollectionSummary } from "../collection.js";
import { escapeXml } from "../escape.js";
import { MISSING, plural } from "../../core/index.js";
import { htmlTable } from "../html.js";
import { markdownTable } from "../markdown.js";
import type { ReportSection } from "../types.js";

/** Why the page has no prediction sections, and how to get them. */
export const NO_EVALUATION_NOTE =
  "This database holds a collection and no evaluation, so this report shows what was collected and what its runs show: " +
  "bugs that leave goroutines blocked, potential deadlocks, data races and flaky tests. " +
  "The prediction sections (next-event accuracy, calibration, rollouts, fidelity) need a trained and evaluated model: " +
  "run `schedlab run`, or `schedlab train` then `schedlab eval`, on this database, then `schedlab report` again.";

const HEADERS = [
  "program",
  "kind",
  "runs",
  "plain / race / perturbed",
  "outcomes",
  "ingested",
  "hunt",
  "bugs",
  "potential deadlocks",
  "races",
  "flaky tests",
] as const;
const NUMERIC = [2, 5, 7, 8, 9, 10];

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function outcomesText(outcomes: Readonly<Record<string, number>>): string {
  const parts = Object.entries(outcomes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([outcome, n]) => `${outcome} ${n}`);
  return parts.length === 0 ? MISSING : parts.join(", ");
}

function huntText(p: CollectedProgram): string {
  if (p.hunt === null) return MISSING;
  if (p.hunt.status === "build-error") return "build error";
  return `${p.hunt.status}, ${seconds(p.hunt.spentMs)} of ${seconds(p.hunt.budgetMs)}`;
}

/** One row per program: what was collected of it, then what its runs show. */
export function collectionRows(collection: CollectionSummary, analysis: LeakAnalysis): string[][] {
  const analysed = new Map(analysis.programs.map((p) => [p.program, p]));
  return collection.programs.map((p) => {
    const a = analysed.get(p.name);
    const count = (n: number | undefined): string =>
      p.buildFailed ? "build error" : n === undefined ? MISSING : String(n);
    return [
      p.name,
      p.kind,
      String(p.runs),
      `${p.byStrategy.plain} / ${p.byStrategy.race} / ${p.byStrategy.perturb}`,
      outcomesText(p.outcomes),
      String(p.ingested),
      huntText(p),
      count(a?.bugs.length),
      count(a?.potential.length),
      count(a?.races.length),
      count(a?.flaky.length),
    ];
  });
}

/** The sentences above the table: the collection in numbers, then the findings in numbers. */
export function collectionLines(collection: CollectionSummary, analysis: LeakAnalysis): string[] {
  const programs = collection.programs;
  const sum = (f: (p: CollectedProgram) => number): number => programs.reduce((total, p) => total + f(p), 0);
  const outcomes: Record<string, number> = {};
  for (const p of programs)
    for (const [outcome, n] of Object.entries(p.outcomes)) outcomes[outcome] = (outcomes[outcome] ?? 0) + n;
  const hunted = programs.filter((p) => p.hunt !== null);
  const failed = programs.filter((p) => p.buildFailed);
  const tests = programs.filter((p) => p.kind === "test").length;
  const runs = sum((p) => p.runs);
  const lines = [
    `${plural(programs.length, "program")} (${tests} test, ${programs.length - tests} main), ` +
      `${plural(runs, "run")} (${sum((p) => p.byStrategy.plain)} plain, ` +
      `${sum((p) => p.byStrategy.race)} -race, ${sum((p) => p.byStrategy.perturb)} perturbed; ` +
      `outcomes ${outcomesText(outcomes)}), ${sum((p) => p.ingested)} ingested` +
      `${failed.length === 0 ? "" : `; ${plural(failed.length, "program")} did not build (${failed.map((p) => p.name).join(", ")})`}` +
      `${collection.goVersions.length === 0 ? "" : `; Go ${collection.goVersions.join(", ")}`}` +
      `${collection.firstRunAt === null ? "" : `; runs recorded ${collection.firstRunAt} to ${collection.lastRunAt}`}.`,
  ];
  if (hunted.length > 0) {
    const confirmed = hunted.filter((p) => p.hunt!.status === "confirmed").length;
    const exhausted = hunted.filter((p) => p.hunt!.status === "exhausted").length;
    lines.push(
      `${plural(hunted.length, "program")} hunted with a budget (collect --budget or hunt): ${confirmed} ` +
        `stopped at a confirmed finding, ${exhausted} spent the budget.`,
    );
  }
  lines.push(
    `The runs show ${bugCounts(analysis)}; ` +
      `${plural(analysis.races.length, "data race")} in ${plural(analysis.raceRunsChecked, "-race run")} searched; ` +
      `${plural(analysis.flaky.length, "flaky test")}. The sections below give each.`,
  );
  return lines;
}

/** First section of a collection's report: the note on prediction and the collection in numbers; the bugs follow it. */
export function collectionOverviewSection(collection: CollectionSummary, analysis: LeakAnalysis): ReportSection {
  const lines = collectionLines(collection, analysis);
  return {
    id: "overview",
    title: "Overview",
    html: () =>
      [
        `<p class="note">${escapeXml(NO_EVALUATION_NOTE)}</p>`,
        ...lines.map((line) => `<p>${escapeXml(line)}</p>`),
      ].join("\n"),
    markdown: () => [NO_EVALUATION_NOTE, ...lines].join("\n\n"),
    json: () => ({ evaluation: null, note: NO_EVALUATION_NOTE, collection }),
  };
}

/** Last section of a collection's report: per program, what was collected of it and what its runs show. */
export function collectionProgramsSection(collection: CollectionSummary, analysis: LeakAnalysis): ReportSection {
  const rows = collectionRows(collection, analysis);
  return {
    id: "programs",
    title: "Programs",
    html: () => `<div class="scroll">${htmlTable({ headers: HEADERS, rows, numeric: NUMERIC })}</div>`,
    markdown: () => markdownTable(HEADERS, rows, NUMERIC),
    json: () => ({ headers: HEADERS, rows }),
  };
}
