// The leak analysis as tables: every goroutine the leak rule judged, the data races of -race
// runs, the goroutines blocked when a run crashed, and the tests flaky under schedule. The
// bugs themselves are bugs.ts's.

import { kindCounts, type LeakAnalysis } from "../../leaks/index.js";
import { escapeXml } from "../escape.js";
import { fixed, MISSING, pct, plural } from "../../core/index.js";
import { htmlTable } from "../html.js";
import { markdownTable } from "../markdown.js";
import { shortName, siteFile } from "./names.js";
import type { OverviewInput } from "./pipeline.js";
import type { ReportSection } from "../types.js";

const LEAK_HEADERS = [
  "program",
  "test",
  "goroutine",
  "count",
  "kind",
  "verdict",
  "reason",
  "created at",
  "blocked at",
  "runs blocked / seen",
  "P(GoUnblock) ≤",
  "why",
] as const;
const RACE_HEADERS = [
  "program",
  "access",
  "racing with",
  "goroutines created at",
  "runs reporting / searched",
] as const;
const CRASH_HEADERS = ["program", "test", "goroutine", "reason", "blocked at", "crashed runs"] as const;

type Finding = LeakAnalysis["findings"][number];

/**
 * Findings grouped by (program, test, entry, kind, reason, sites): sibling goroutines from
 * one `go` statement in a loop are one row with a count. Pure; rows in program order.
 */
export function leakRows(findings: readonly Finding[]): string[][] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = JSON.stringify([
      f.program,
      f.test,
      f.entry,
      f.kind,
      f.verdict,
      f.reason,
      f.creationSite,
      f.blockingSite,
    ]);
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups.values()].map((group) => {
    const f = group[0]!;
    const blocked = Math.min(...group.map((g) => g.runsBlocked));
    const seen = Math.max(...group.map((g) => g.runsSeen));
    return [
      f.program,
      f.test ?? MISSING,
      shortName(f.entry ?? f.goroutine),
      String(group.length),
      f.kind,
      f.verdict,
      f.reason,
      f.isRoot ? "(root goroutine)" : (f.creationSiteKey ?? shortName(f.creationSite)),
      siteFile(f.blockingSite),
      `${blocked} / ${seen}`,
      fixed(Math.max(...group.map((g) => g.pUnblockUpper))),
      f.why,
    ];
  });
}

/** One row per data race: both accesses (kind and top user frame), where the goroutines were created, runs. */
export function raceRows(races: LeakAnalysis["races"]): string[][] {
  return races.map((r) => [
    r.program,
    `${r.accesses[0]} ${shortName(r.frames[0])}`,
    `${r.accesses[1]} ${shortName(r.frames[1])}`,
    r.createdAt.map((c) => shortName(c)).join(", "),
    `${r.runs} / ${r.runsChecked}`,
  ]);
}

/** One row per goroutine that was blocked when a run crashed (not a leak). */
export function crashRows(blocked: LeakAnalysis["blockedAtCrash"]): string[][] {
  return blocked.map((b) => [
    b.program,
    b.test ?? MISSING,
    shortName(b.entry ?? b.goroutine),
    b.reason,
    shortName(b.blockingSite),
    String(b.runsCrashed),
  ]);
}

/**
 * The leak table: every goroutine the leak rule judged — blocked forever (leak, deadlock)
 * first, then outlived, inconclusive and background — with its verdict, test, sites and
 * why; then the data races of -race runs and the goroutines that were only blocked when a
 * run crashed.
 */
export function leakSection(analysis: LeakAnalysis | null, score: OverviewInput["leaks"]): ReportSection {
  const order = (f: Finding): number =>
    f.gating ? 0 : ["leak", "deadlock", "outlived", "inconclusive", "background"].indexOf(f.kind) + 1;
  const findings = [...(analysis?.findings ?? [])].sort((a, b) => order(a) - order(b));
  const blockedForever = findings.filter((f) => f.gating);
  const rows = leakRows(findings);
  const races = raceRows(analysis?.races ?? []);
  const crashed = crashRows(analysis?.blockedAtCrash ?? []);
  const intro =
    analysis === null
      ? "The leak stage did not run; see the warnings in the overview."
      : `${plural(blockedForever.length, "goroutine")} blocked forever (${kindCounts(findings)}) ` +
        `in ${analysis.programs.filter((p) => p.findings.some((f) => f.gating)).length} ` +
        `of ${plural(analysis.programs.length, "program")}. Kinds: leak and deadlock are blocked forever; ` +
        "outlived goroutines are alive (a timer, ticker or context can wake them) after their test ended; " +
        "inconclusive ones were left waiting while a goroutine that woke the same wait elsewhere was still " +
        "live, or only in runs the deadline cut; background ones predate the test or belong to init or " +
        "TestMain. The verdict comes first (proven needs a proof: the runtime's goroutine leak profile, a hang " +
        "of every goroutine of the process, a cycle, a wait nothing can end; likely: the trace and the source " +
        "say so, and the text says which proof is missing), with the evidence that decided it; " +
        "siblings started by the same go statement share a row (count), " +
        "goroutines of tests are listed under their test and subtest, " +
        "and the P(GoUnblock) column is a one-sided 95 % Clopper–Pearson upper bound from the wake-ups counted " +
        `within runs; \`schedlab leaks\` lists every goroutine with its canonical id.` +
        (score === null
          ? ""
          : ` Against the manifests' labels: precision ${pct(score.precision)}, ` +
            `recall ${pct(score.recall)}, ${plural(score.falsePositivesOnClean, "false positive")} on clean ` +
            "programs.");
  const raceIntro =
    analysis === null || analysis.raceRunsChecked === 0
      ? ""
      : `Data races: ${plural(analysis.races.length, "race")} reported ` +
        `by ${plural(analysis.raceRunsChecked, "-race run")} searched, ` +
        "each by the top user frames of its two accesses.";
  const crashIntro =
    crashed.length === 0
      ? ""
      : "Blocked when a run crashed (a panic or fatal error ended the wait; not leaks, " +
        `and crashed runs are left out of the table above): ${plural(crashed.length, "goroutine")}.`;
  const htmlPart = (text: string, headers: readonly string[], body: string[][], numeric: number[]): string =>
    text === ""
      ? ""
      : `\n<p>${escapeXml(text)}</p>${body.length === 0 ? "" : `\n<div class="scroll">${htmlTable({ headers, rows: body, numeric })}</div>`}`;
  const markdownPart = (text: string, headers: readonly string[], body: string[][], numeric: number[]): string =>
    text === "" ? "" : `\n\n${text}${body.length === 0 ? "" : `\n\n${markdownTable(headers, body, numeric)}`}`;
  return {
    id: "leaks",
    title: "Goroutine leaks",
    html: () =>
      `<p>${escapeXml(intro)}</p>\n${rows.length === 0 ? "" : `<div class="scroll">${htmlTable({ headers: LEAK_HEADERS, rows, numeric: [3, 9, 10] })}</div>`}` +
      htmlPart(raceIntro, RACE_HEADERS, races, [4]) +
      htmlPart(crashIntro, CRASH_HEADERS, crashed, [5]),
    markdown: () =>
      `${intro}\n\n${rows.length === 0 ? "" : markdownTable(LEAK_HEADERS, rows, [3, 9, 10])}` +
      markdownPart(raceIntro, RACE_HEADERS, races, [4]) +
      markdownPart(crashIntro, CRASH_HEADERS, crashed, [5]),
    json: () => ({
      score,
      bugs: analysis?.bugs.length ?? 0,
      potentialDeadlocks: analysis?.potentialDeadlocks.length ?? 0,
      findings: findings.length,
      blockedForever: blockedForever.length,
      rows: rows.length,
      races: races.length,
      blockedAtCrash: crashed.length,
    }),
  };
}

const FLAKY_HEADERS = [
  "program",
  "test",
  "kind",
  "runs failed / passed",
  "failed plain",
  "failing configurations",
  "first failure",
  "replay",
] as const;
const TRACER_HEADERS = ["program", "test", "runs", "failure", "fix"] as const;

/** One row per flaky test: how often it failed and passed, under which configurations, its first failure and the command replaying it. */
export function flakyRows(flaky: LeakAnalysis["flaky"]): string[][] {
  return flaky.map((f) => [
    f.program,
    f.test ?? MISSING,
    f.kind,
    `${f.runsFailed} / ${f.runsPassed}`,
    String(f.plainRunsFailed),
    f.strategies.join(", "),
    f.summary,
    f.replay,
  ]);
}

/**
 * One row per test the tracer made fail: a leak check that saw the tracer's goroutine (with
 * the fix), or a crash its untraced rerun did not repeat. Not flaky, not the code's.
 */
export function tracerInducedRows(failures: LeakAnalysis["tracerInduced"]): string[][] {
  return failures.map((f) => {
    const lines = f.message.trim().split("\n");
    const fix =
      f.kind === "fail"
        ? lines.length > 1
          ? lines.at(-1)!
          : MISSING
        : "none needed in the code: it passed when rerun without the tracer";
    return [f.program, f.test ?? MISSING, String(f.runs), lines[0] ?? "", fix];
  });
}

/**
 * Tests flaky under schedule: failed or panicked in some runs and passed in others (the race
 * detector's own failures are the races'), each with its first failing run to replay; then
 * the failures the execution tracer caused, which are not flaky (docs/leaks.md).
 */
export function flakySection(analysis: LeakAnalysis | null): ReportSection {
  const rows = flakyRows(analysis?.flaky ?? []);
  const tracer = tracerInducedRows(analysis?.tracerInduced ?? []);
  const runs = analysis?.programs.reduce((sum, p) => sum + p.runs, 0) ?? 0;
  const intro =
    analysis === null
      ? "The leak stage did not run; see the warnings in the overview."
      : rows.length === 0
        ? `No test failed on some schedules and passed on others in the ${plural(runs, "run")} read.`
        : `${plural(rows.length, "test")} failed on some schedules and passed on others (flaky under ` +
          `schedule; \`schedlab leaks --fail-on-flaky\` or \`schedlab hunt --fail-on flaky\` gate them). ` +
          `"failed plain" counts the failing runs that were neither perturbed nor -race: ` +
          "0 means it fails only under perturbation, -race or another GOMAXPROCS. Replay the first failing run " +
          "with its seed to see it again.";
  const tracerIntro =
    tracer.length === 0
      ? ""
      : "Failures the execution tracer caused (a leak check saw the tracer's own goroutine, or a crash did " +
        "not happen again when the binary was rerun without the tracer): " +
        `not flaky and not counted by a gate; the fix is in the last column. ${plural(tracer.length, "test")}.`;
  return {
    id: "flaky",
    title: "Flaky tests",
    html: () =>
      `<p>${escapeXml(intro)}</p>${rows.length === 0 ? "" : `\n<div class="scroll">${htmlTable({ headers: FLAKY_HEADERS, rows, numeric: [4] })}</div>`}` +
      (tracerIntro === ""
        ? ""
        : `\n<p>${escapeXml(tracerIntro)}</p>\n<div class="scroll">${htmlTable({ headers: TRACER_HEADERS, rows: tracer, numeric: [2] })}</div>`),
    markdown: () =>
      `${intro}${rows.length === 0 ? "" : `\n\n${markdownTable(FLAKY_HEADERS, rows, [4])}`}` +
      (tracerIntro === "" ? "" : `\n\n${tracerIntro}\n\n${markdownTable(TRACER_HEADERS, tracer, [2])}`),
    json: () => ({ flaky: analysis?.flaky ?? [], tracerInduced: analysis?.tracerInduced ?? [] }),
  };
}
