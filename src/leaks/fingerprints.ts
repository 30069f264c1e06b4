// Everything a gate can count, each under a stable, portable fingerprint: bugs and potential
// deadlocks carry the model's (src/model/bugs.ts, lock-order.ts); a data race is keyed by its
// two accesses' functions and kinds; a flaky test, a failing one and a crash by their
// program, test and kind —
// never by lines, run ids or machine paths, so an accepted finding stays accepted when code
// above it moves (docs/ci.md, "Fingerprints"). Baselines, SARIF and the gates read them. Pure.

import { fingerprintOf, fingerprintProgram, parseFrame, type FindingKind, type Verdict } from "../model/index.js";
import type { CrashFinding, FailingFinding, FlakyFinding } from "./flaky.js";
import type { BugReport, LeakAnalysis } from "./from-database.js";
import type { RaceFinding } from "./race.js";

/** What a counted thing is: a bug's kind, or one of the other classes a gate counts. */
export type CountedKind = FindingKind | "potential-deadlock" | "race" | "flaky" | "failing" | "crash";

export const COUNTED_KINDS: readonly CountedKind[] = [
  "deadlock",
  "leak",
  "outlived",
  "inconclusive",
  "background",
  "potential-deadlock",
  "race",
  "flaky",
  "failing",
  "crash",
];

/** One thing a gate can count, as a baseline lists it. */
export interface CountedItem {
  readonly fingerprint: string;
  readonly kind: CountedKind;
  readonly program: string;
  /** The Go test as `go test -run` names it; null for a main program or a goroutine no test owns. */
  readonly test: string | null;
  /** One line for a reader: verdict, kind and where. */
  readonly summary: string;
}

/** The function of a "function file:line" site, without the line that edits move. */
function siteFunction(site: string): string {
  return parseFrame(site)?.function ?? site;
}

/** A race's fingerprint: its program and both accesses' functions and kinds, in the finding's (sorted) order. */
export function raceFingerprint(race: RaceFinding): string {
  return fingerprintOf([
    `race|${fingerprintProgram(race.program)}|${siteFunction(race.frames[0])}|${race.accesses[0]}|${siteFunction(race.frames[1])}|${race.accesses[1]}`,
  ]);
}

/** A flaky test's fingerprint: its program, test and whether it failed or panicked. */
export function flakyFingerprint(flaky: FlakyFinding): string {
  return fingerprintOf([`flaky|${fingerprintProgram(flaky.program)}|${flaky.test ?? ""}|${flaky.kind}`]);
}

/** A failing test's fingerprint: its program and test. */
export function failingFingerprint(failing: FailingFinding): string {
  return fingerprintOf([`failing|${fingerprintProgram(failing.program)}|${failing.test ?? ""}|fail`]);
}

/** A crash's fingerprint: its program, the test charged and whether it panicked or hit a fatal error. */
export function crashFingerprint(crash: CrashFinding): string {
  return fingerprintOf([`crash|${fingerprintProgram(crash.program)}|${crash.test ?? ""}|${crash.kind}`]);
}

/** Whether an owner is a Go test, example, fuzz target or benchmark (not main.main, TestMain or a background root). */
export function isTestName(owner: string): boolean {
  return /^(Test|Example|Fuzz|Benchmark)/.test(owner) && !/^TestMain(#|$)/.test(owner);
}

/** The first sentence of a paragraph, for one-line summaries. */
export function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1);
}

function bugSummary(bug: BugReport): string {
  const why = bug.explained?.explanation.text ?? bug.why;
  return `${bug.verdict} ${bug.kind}: ${firstSentence(why)}`;
}

/** One line naming a race's two accesses: "read at main.go:14 (main.record) races with write at main.go:14 (main.record)". */
export function raceSummary(race: RaceFinding): string {
  const side = (i: 0 | 1): string => {
    const frame = parseFrame(race.frames[i]);
    return frame === null
      ? `${race.accesses[i]} at ${race.frames[i]}`
      : `${race.accesses[i]} at ${frame.file}:${frame.line} (${frame.function})`;
  };
  return `data race: ${side(0)} races with ${side(1)}`;
}

/** What a failure of `kind` did, as a verb: failed, panicked, crashed (a fatal error). */
export function failedVerb(kind: "fail" | "panic" | "fatal"): string {
  return kind === "panic" ? "panicked" : kind === "fatal" ? "crashed" : "failed";
}

export function flakySummary(flaky: FlakyFinding): string {
  return (
    `flaky ${flaky.kind}: ${flaky.test ?? "the program"} ${failedVerb(flaky.kind)} on some schedules: ` +
    `${flaky.summary}`
  );
}

export function failingSummary(failing: FailingFinding): string {
  return `failing: ${failing.test ?? "the program"} failed in every run: ${failing.summary}`;
}

export function crashSummary(crash: CrashFinding): string {
  return `crash (${crash.kind}): ${crash.test ?? "the program"} ${failedVerb(crash.kind)}: ${crash.header}`;
}

/** The verdict a counted thing is shown with; races and flaky failures were observed, so proven. */
export type CountedVerdict = Verdict | "potential";

/**
 * Every bug, potential deadlock, data race, flaky test, failing test and crash of an
 * analysis, in that order (tracer-induced failures are not the code's: never counted).
 * Two bugs may share a fingerprint (the same wait in the same owner, seen in different
 * runs): each is listed, and a baseline entry for it accepts both.
 */
export function countedItems(analysis: LeakAnalysis): CountedItem[] {
  return [
    ...analysis.bugs.map((b) => ({
      fingerprint: b.fingerprint,
      kind: b.kind,
      program: b.program,
      test: b.test,
      summary: bugSummary(b),
    })),
    ...analysis.potentialDeadlocks.map((p) => ({
      fingerprint: p.fingerprint,
      kind: "potential-deadlock" as const,
      program: p.program,
      test: isTestName(p.owner) ? p.owner : null,
      summary: `potential ${p.pattern} deadlock: ${firstSentence(p.why)}`,
    })),
    ...analysis.races.map((r) => ({
      fingerprint: raceFingerprint(r),
      kind: "race" as const,
      program: r.program,
      test: null,
      summary: raceSummary(r),
    })),
    ...analysis.flaky.map((f) => ({
      fingerprint: flakyFingerprint(f),
      kind: "flaky" as const,
      program: f.program,
      test: f.test,
      summary: flakySummary(f),
    })),
    ...analysis.failing.map((f) => ({
      fingerprint: failingFingerprint(f),
      kind: "failing" as const,
      program: f.program,
      test: f.test,
      summary: failingSummary(f),
    })),
    ...analysis.crashed.map((c) => ({
      fingerprint: crashFingerprint(c),
      kind: "crash" as const,
      program: c.program,
      test: c.test,
      summary: crashSummary(c),
    })),
  ];
}
