// The findings of an analysis as CI tools take them: one result per bug, potential
// deadlock, data race, flaky test, failing test and crash, each with a rule, a severity from its verdict, its
// fingerprint, the test it belongs to, a one-line title, the explanation paragraph, a
// primary place in the repository (where the explained goroutine blocks) and related places
// (where it was created, whom it waits for, where a lock holder took the lock). SARIF, JUnit
// and workflow annotations (sarif.ts, junit.ts, annotations.ts) render these; docs/ci.md
// says what each field becomes. Pure, given the context.

import { goroutineLabel, parseFrame, siteLine, type PotentialDeadlock, type WaitFor } from "../model/index.js";
import type { CiContext } from "./ci-context.js";
import {
  crashFingerprint,
  failedVerb,
  failingFingerprint,
  flakyFingerprint,
  isTestName,
  raceFingerprint,
  raceSummary,
  type CountedKind,
  type CountedVerdict,
} from "./fingerprints.js";
import type { CrashFinding, FailingFinding, FlakyFinding } from "./flaky.js";
import type { BugReport, LeakAnalysis } from "./from-database.js";
import type { RaceFinding } from "./race.js";
import type { SourceLocation } from "./source-paths.js";
import type { LeakFinding } from "./types.js";

/** How loud a result is: SARIF's levels (workflow annotations use error and warning). */
export type CiSeverity = "error" | "warning" | "note";

/** A place a result points at, with what is there. */
export interface CiPlace {
  /** In the repository; null when no directory of the program holds the site's file. */
  readonly location: SourceLocation | null;
  /** The site as the finding names it ("function file:line"), or null. */
  readonly site: string | null;
  readonly message: string;
}

/** Values a result carries as properties (SARIF property bag, JUnit properties). */
export type CiProperty = string | number | boolean | null | readonly string[] | readonly number[];

export interface CiResult {
  readonly rule: CountedKind;
  readonly fingerprint: string;
  readonly program: string;
  /** The Go test as `go test -run` names it; null for a main program, a race, or a goroutine no test owns. */
  readonly test: string | null;
  readonly verdict: CountedVerdict;
  readonly severity: CiSeverity;
  /** One line: verdict, kind, program and test. */
  readonly title: string;
  /** The explanation paragraph. */
  readonly message: string;
  readonly primary: CiPlace;
  readonly related: readonly CiPlace[];
  /** The explained goroutine's user frames at the block, innermost first (bugs only). */
  readonly stack: readonly CiPlace[];
  /** The baseline's reason when a baseline accepts it; null for a result the gates count. */
  readonly baselined: string | null;
  readonly properties: Readonly<Record<string, CiProperty>>;
}

/** The rules results fall under, with what each means (SARIF's rule metadata, docs/ci.md). */
export const CI_RULES: readonly {
  readonly kind: CountedKind;
  readonly name: string;
  readonly short: string;
  readonly description: string;
}[] = [
  {
    kind: "leak",
    name: "GoroutineLeak",
    short: "Goroutine blocked forever",
    description:
      "Goroutines left blocked forever while their test or program went on or finished: nothing can ever wake them.",
  },
  {
    kind: "deadlock",
    name: "Deadlock",
    short: "Deadlock: a run hung",
    description: "A run hung with every user goroutine blocked: the program or test cannot finish.",
  },
  {
    kind: "outlived",
    name: "OutlivedTest",
    short: "Goroutine outlived its test",
    description:
      "A goroutine still alive (a timer, ticker or context can wake it) after the test or program that created it ended.",
  },
  {
    kind: "inconclusive",
    name: "InconclusiveBlock",
    short: "Goroutine left blocked, inconclusive",
    description:
      "A goroutine left blocked while whatever woke the same wait elsewhere was still live, or only in runs the deadline cut.",
  },
  {
    kind: "background",
    name: "BackgroundGoroutine",
    short: "Background goroutine left waiting",
    description: "A goroutine no test owns (package init, TestMain or package state) left waiting when the run ended.",
  },
  {
    kind: "potential-deadlock",
    name: "PotentialDeadlock",
    short: "Potential deadlock from lock order",
    description:
      "Recorded lock orders make a deadlock possible (a lock-order inversion or a recursive read lock), though no run hung on it.",
  },
  {
    kind: "race",
    name: "DataRace",
    short: "Data race",
    description: "The race detector reported two unsynchronised accesses to the same memory, at least one a write.",
  },
  {
    kind: "flaky",
    name: "FlakyTest",
    short: "Test flaky under schedule",
    description: "A test that failed or panicked on some schedules and passed on others.",
  },
  {
    kind: "failing",
    name: "FailingTest",
    short: "Test failing in every run",
    description:
      "A test that failed (t.Error, t.Fatal, an Example's output) in every run that finished, plain runs included.",
  },
  {
    kind: "crash",
    name: "Crash",
    short: "Panic or fatal error",
    description:
      "A Go panic or a fatal runtime error (a fatal error, a fatal signal) killed the test binary or program in " +
      "every run of its test; not one the execution tracer caused.",
  },
];

export function ruleId(kind: CountedKind): string {
  return `schedlab/${kind}`;
}

/** The severity of a verdict: proven is an error, likely and potential a warning, inconclusive a note. */
export function severityOf(verdict: CountedVerdict): CiSeverity {
  return verdict === "proven" ? "error" : verdict === "inconclusive" ? "note" : "warning";
}

function place(context: CiContext, program: string, site: string | null, message: string): CiPlace {
  return { location: context.sources.site(program, site), site, message };
}

/** The test function a result falls back to when its site cannot be placed: the test's declaration, or main's. */
function fallback(context: CiContext, program: string, test: string | null, message: string): CiPlace {
  const name = test === null ? "main" : test.split("/")[0].replace(/#\d+$/, "");
  return { location: context.sources.declaration(program, name), site: null, message };
}

/** Places after the primary one, each at most once (by file and line). */
function distinct(primary: CiPlace, places: readonly CiPlace[]): CiPlace[] {
  const key = (p: CiPlace): string =>
    p.location === null ? `site:${p.site}` : `${p.location.path}:${p.location.line}`;
  const seen = new Set([key(primary)]);
  return places.filter((p) => {
    if (p.location === null && p.site === null) return false;
    const k = key(p);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function stateText(w: WaitFor): string {
  if (w.state === "blocked") return `itself blocked here in ${w.wait ?? "a wait"}`;
  if (w.state === "ended") return "it had ended (created here)";
  return `still ${w.state} when the trace stopped (created here)`;
}

/** The test a bug belongs to: its own, else (in a test program) its owner when that is a test. */
function bugTest(bug: BugReport): string | null {
  return bug.test ?? (isTestName(bug.owner) ? bug.owner : null);
}

function bugResult(
  bug: BugReport,
  findings: ReadonlyMap<string, LeakFinding>,
  context: CiContext,
): Omit<CiResult, "baselined"> {
  const finding = (goroutine: string): LeakFinding | undefined => findings.get(`${bug.program}\u0000${goroutine}`);
  const explainedId = bug.explained?.goroutine ?? bug.goroutines[0];
  const explanation = bug.explained?.explanation ?? null;
  const main = finding(explainedId);
  const label = goroutineLabel(explainedId);
  const test = bugTest(bug);
  const blockedAt = main?.blockingSite ?? explanation?.stack[0] ?? null;
  const waitText = main === undefined ? "" : ` in ${main.wait}`;
  const located = place(context, bug.program, blockedAt, `${label} is blocked here${waitText}`);
  const primary =
    located.location !== null
      ? located
      : {
          ...fallback(
            context,
            bug.program,
            test,
            `${label} is blocked at ${siteLine(blockedAt)}${waitText}; this test is where it belongs`,
          ),
          site: blockedAt,
        };
  const runId = explanation?.runId ?? bug.runIds[0] ?? null;
  const places: CiPlace[] = [];
  if (main !== undefined && !main.isRoot && main.creationSite !== null)
    places.push(place(context, bug.program, main.creationSite, `${label} was created here`));
  for (const w of explanation?.waitsFor ?? []) {
    const name = goroutineLabel(w.goroutine);
    const role =
      w.basis === "holds-lock"
        ? "holds the lock it wants"
        : w.basis === "woke-before"
          ? "woke it from this wait in other runs"
          : "can complete its wait (source)";
    const site =
      w.state === "blocked"
        ? w.blockedAt
        : ((runId === null ? null : context.creationSite(runId, w.goroutine)) ??
          finding(w.goroutine)?.creationSite ??
          null);
    if (site !== null) places.push(place(context, bug.program, site, `${name} ${role}: ${stateText(w)}`));
    if (w.tookLockAt !== null)
      places.push(place(context, bug.program, w.tookLockAt, `${name} took the lock here and still holds it`));
  }
  for (const step of (explanation?.cycle ?? []).slice(1)) {
    places.push(
      place(
        context,
        bug.program,
        step.site,
        `${goroutineLabel(step.goroutine)} waits here (${step.wait}) in the cycle`,
      ),
    );
  }
  for (const id of bug.goroutines) {
    const other = finding(id);
    if (id === explainedId || other === undefined) continue;
    places.push(
      place(
        context,
        bug.program,
        other.blockingSite,
        `${goroutineLabel(id)} of the same bug is blocked here in ${other.wait}`,
      ),
    );
    if (!other.isRoot && other.creationSite !== null)
      places.push(
        place(context, bug.program, other.creationSite, `${goroutineLabel(id)} of the same bug was created here`),
      );
  }
  const text = explanation?.text ?? `${label} is blocked at ${siteLine(blockedAt)}${waitText}.`;
  const message = bug.why !== "" && !text.includes(bug.why) ? `${text} (${bug.verdict}: ${bug.why})` : text;
  return {
    rule: bug.kind,
    fingerprint: bug.fingerprint,
    program: bug.program,
    test,
    verdict: bug.verdict,
    // A leak seen only in runs the deadline cut counts for no gate: a note, whatever its verdict.
    severity: bug.kind === "leak" && !bug.gating ? "note" : severityOf(bug.verdict),
    title: `${bug.verdict} ${bug.kind} in ${bug.program}${test === null ? "" : ` ${test}`}`,
    message,
    primary,
    related: distinct(primary, places),
    stack: (explanation?.stack ?? []).map((frame) =>
      place(context, bug.program, frame, frame.slice(0, frame.lastIndexOf(" "))),
    ),
    properties: {
      program: bug.program,
      test,
      kind: bug.kind,
      verdict: bug.verdict,
      owner: bug.owner,
      goroutines: bug.goroutines,
      runs: bug.runIds,
      replay: bug.replay,
      evidenceRuntime: bug.evidence.runtime,
      evidenceTrace: bug.evidence.trace,
      evidenceSource: bug.evidence.source,
    },
  };
}

function potentialResult(p: PotentialDeadlock, context: CiContext): Omit<CiResult, "baselined"> {
  const test = isTestName(p.owner) ? p.owner : null;
  const first = p.steps[0];
  const located = place(
    context,
    p.program,
    first?.takenAt ?? null,
    `${first === undefined ? "a goroutine" : goroutineLabel(first.goroutine)} asks for a lock here while holding another`,
  );
  const primary =
    located.location !== null
      ? located
      : fallback(context, p.program, test, "the lock orders were recorded in this test");
  const places: CiPlace[] = [];
  for (const step of p.steps) {
    const name = goroutineLabel(step.goroutine);
    places.push(
      place(context, p.program, step.heldAt, `${name} took a lock here (${step.modes[0] === "r" ? "read" : "write"})`),
    );
    places.push(
      place(
        context,
        p.program,
        step.takenAt,
        `${name} then asks for another here (${step.modes[1] === "r" ? "read" : "write"})`,
      ),
    );
  }
  if (p.writerAt !== null) places.push(place(context, p.program, p.writerAt, "a writer asks for the same lock here"));
  return {
    rule: "potential-deadlock",
    fingerprint: p.fingerprint,
    program: p.program,
    test,
    verdict: "potential",
    severity: "warning",
    title: `potential ${p.pattern} deadlock in ${p.program}${test === null ? "" : ` ${test}`}`,
    message: `${p.why}${p.why.endsWith(".") ? "" : "."} Seen in ${p.runIds.length} run(s), none of which hung on it.`,
    primary,
    related: distinct(primary, places),
    stack: [],
    properties: {
      program: p.program,
      test,
      kind: "potential-deadlock",
      pattern: p.pattern,
      owner: p.owner,
      runs: p.runIds,
    },
  };
}

function raceResult(r: RaceFinding, context: CiContext): Omit<CiResult, "baselined"> {
  const located = place(context, r.program, r.frames[0], `${r.accesses[0]} here`);
  const primary =
    located.location !== null ? located : fallback(context, r.program, null, `${r.accesses[0]} at ${r.frames[0]}`);
  const places = [
    place(context, r.program, r.frames[1], `racing ${r.accesses[1]} here`),
    ...r.createdAt.map((site, i) =>
      place(context, r.program, site, `the goroutine of the ${r.accesses[i]} was created here`),
    ),
  ];
  return {
    rule: "race",
    fingerprint: raceFingerprint(r),
    program: r.program,
    test: null,
    verdict: "proven",
    severity: "error",
    title: `data race in ${r.program}`,
    message: `${raceSummary(r).replace(/^data race: /, "Data race: ")}. Reported by ${r.runs} of ${r.runsChecked} -race run(s).`,
    primary,
    related: distinct(primary, places),
    stack: [],
    properties: {
      program: r.program,
      kind: "race",
      frames: r.frames,
      accesses: r.accesses,
      runs: r.runs,
      runsChecked: r.runsChecked,
    },
  };
}

/** "pool_test.go:27: Active() = 4 …": the file and line a test failure names first. */
const FAILURE_AT = /^\s*([\w.-]+\.go):(\d+):/;

function flakyResult(f: FlakyFinding, context: CiContext): Omit<CiResult, "baselined"> {
  const at = FAILURE_AT.exec(f.message);
  const firstLine = f.summary;
  const where = at === null ? null : context.sources.fileLine(f.program, at[1], Number(at[2]));
  const primary =
    where !== null
      ? { location: where, site: `${at?.[1]}:${at?.[2]}`, message: `${f.test ?? "the program"} failed here` }
      : fallback(context, f.program, f.test, `${f.test ?? "the program"} ${failedVerb(f.kind)}: ${firstLine}`);
  const when =
    f.plainRunsFailed === 0
      ? `only under ${[...new Set(f.strategies.map((s) => s.split(" ")[0]))].join(", ")}`
      : `also in ${f.plainRunsFailed} plain run(s)`;
  return {
    rule: "flaky",
    fingerprint: flakyFingerprint(f),
    program: f.program,
    test: f.test,
    verdict: "proven",
    severity: "error",
    title: `flaky ${f.test ?? "program"} in ${f.program}`,
    message:
      `${f.test ?? "The program"} ${failedVerb(f.kind)} in ${f.runsFailed} run(s) ` +
      `and passed in ${f.runsPassed} (${when}): ${firstLine}${/[.!?]$/.test(firstLine) ? "" : "."} ` +
      `Replay the first failure: ${f.replay}`,
    primary,
    related: [],
    stack: [],
    properties: {
      program: f.program,
      test: f.test,
      kind: "flaky",
      failure: f.kind,
      runsFailed: f.runsFailed,
      runsPassed: f.runsPassed,
      strategies: f.strategies,
      replay: f.replay,
      seed: f.run.seed,
    },
  };
}

/** Where a test failure points: the `file.go:LINE` its message names first, else the test's declaration. */
function failurePlace(
  context: CiContext,
  program: string,
  test: string | null,
  message: string,
  fallbackMessage: string,
): CiPlace {
  const at = FAILURE_AT.exec(message);
  const where = at === null ? null : context.sources.fileLine(program, at[1], Number(at[2]));
  return where !== null
    ? { location: where, site: `${at?.[1]}:${at?.[2]}`, message: `${test ?? "the program"} failed here` }
    : fallback(context, program, test, fallbackMessage);
}

function failingResult(f: FailingFinding, context: CiContext): Omit<CiResult, "baselined"> {
  const firstLine = f.summary;
  const primary = failurePlace(
    context,
    f.program,
    f.test,
    f.message,
    `${f.test ?? "the program"} failed: ${firstLine}`,
  );
  const plain = f.plainRunsFailed > 0 ? `, ${f.plainRunsFailed} of them plain` : "";
  return {
    rule: "failing",
    fingerprint: failingFingerprint(f),
    program: f.program,
    test: f.test,
    verdict: "proven",
    severity: "error",
    title: `failing ${f.test ?? "program"} in ${f.program}`,
    message:
      `${f.test ?? "The program"} failed in every run that finished (${f.runsFailed} run(s)${plain}). ` +
      `Replay: ${f.replay}\n${f.message === "" ? "(no message)" : f.message}`,
    primary,
    related: [],
    stack: [],
    properties: {
      program: f.program,
      test: f.test,
      kind: "failing",
      runsFailed: f.runsFailed,
      plainRunsFailed: f.plainRunsFailed,
      strategies: f.strategies,
      replay: f.replay,
      seed: f.run.seed,
    },
  };
}

/** A crash's frame ("function file.go:LINE") placed in the repository: as a site, else by its file in the program's directory. */
function framePlace(context: CiContext, program: string, frame: string, message: string): CiPlace {
  const located = place(context, program, frame, message);
  if (located.location !== null) return located;
  const parsed = parseFrame(frame);
  const where = parsed === null ? null : context.sources.fileLine(program, parsed.file, parsed.line);
  return where === null ? located : { location: where, site: frame, message };
}

function crashResult(c: CrashFinding, context: CiContext): Omit<CiResult, "baselined"> {
  const located = c.stack.length === 0 ? null : framePlace(context, c.program, c.stack[0]!, `${c.header}`);
  const primary =
    located !== null && located.location !== null
      ? located
      : fallback(context, c.program, c.test, `${c.test ?? "the program"} ${failedVerb(c.kind)}: ${c.header}`);
  const rerun =
    c.untraced === "crashed"
      ? " It crashed again when rerun without the execution tracer."
      : c.untraced === "failed"
        ? " Rerun without the execution tracer, it failed without crashing."
        : "";
  return {
    rule: "crash",
    fingerprint: crashFingerprint(c),
    program: c.program,
    test: c.test,
    verdict: "proven",
    severity: "error",
    title: `${c.kind === "panic" ? "panic" : "fatal error"} in ${c.program}${c.test === null ? "" : ` ${c.test}`}`,
    message:
      `${c.test ?? "The program"} ${failedVerb(c.kind)} in ${c.runsCrashed} run(s): ${c.header}.${rerun} ` +
      `Replay: ${c.replay}\n${c.message}`,
    primary,
    related: [],
    stack: c.stack.map((frame) => framePlace(context, c.program, frame, frame.slice(0, frame.lastIndexOf(" ")))),
    properties: {
      program: c.program,
      test: c.test,
      kind: "crash",
      crash: c.kind,
      header: c.header,
      runsCrashed: c.runsCrashed,
      untraced: c.untraced,
      strategies: c.strategies,
      replay: c.replay,
      seed: c.run.seed,
    },
  };
}

/** Every result of `analysis`: bugs, potential deadlocks, races, flaky tests, failing tests, crashes, in that order, each marked when a baseline accepts it. */
export function ciResults(analysis: LeakAnalysis, context: CiContext): CiResult[] {
  const findings = new Map(analysis.findings.map((f) => [`${f.program}\u0000${f.goroutine}`, f]));
  const reasons = new Map((context.baseline?.baselined ?? []).map(({ entry }) => [entry.fingerprint, entry.reason]));
  const results = [
    ...analysis.bugs.map((b) => bugResult(b, findings, context)),
    ...analysis.potentialDeadlocks.map((p) => potentialResult(p, context)),
    ...analysis.races.map((r) => raceResult(r, context)),
    ...analysis.flaky.map((f) => flakyResult(f, context)),
    ...analysis.failing.map((f) => failingResult(f, context)),
    ...analysis.crashed.map((c) => crashResult(c, context)),
  ];
  return results.map((r) => ({ ...r, baselined: reasons.get(r.fingerprint) ?? null }));
}
