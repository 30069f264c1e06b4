// Rendering findings and scores for a terminal (fixed-width tables) and as JSON.

import { fixed, MISSING, shortFunction } from "../core/index.js";
import { goroutineLabel, siteLine, type Evidence, type PotentialDeadlock } from "../model/index.js";
import type { CrashFinding, FailureRunRef } from "./flaky.js";
import type { BugReport, DetectorScore, LeakAnalysis, LeakScoreReport } from "./from-database.js";
import type { Counts, LeakScore } from "./score.js";
import { gateCounts } from "./gates.js";
import { splitCanonicalId } from "./test-path.js";
import { runEndsWorthSaying } from "./run-ends.js";
import type { LeakFinding } from "./types.js";

/** The formula behind pUnblockUpper, printed with every result. */
export const BOUND_FORMULA =
  "pUnblockUpper: one-sided 95% Clopper-Pearson upper bound on P(GoUnblock | blocked there), x = " +
  "wakesAtSite (wake-ups from that wait, counted within runs) of n = runsBlocked + wakesAtSite; with x " +
  "= 0 it is 1 - 0.05^(1/n) (about 3/n).";

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => pad(c, widths[i]))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** "main.go:12" from "main.worker /abs/path/main.go:12". */
function shortSite(site: string | null): string {
  if (site === null) return "-";
  const [fn, where] = site.includes(" ")
    ? [site.slice(0, site.lastIndexOf(" ")), site.slice(site.lastIndexOf(" ") + 1)]
    : ["", site];
  const file = where.slice(where.lastIndexOf("/") + 1);
  const name = shortFunction(fn);
  return name === "" ? file : `${name} ${file}`;
}

/** Findings of one program and test (null: a main program, or a goroutine outside any test). */
interface FindingGroup {
  readonly program: string;
  readonly test: string | null;
  readonly findings: LeakFinding[];
}

function groupFindings(findings: readonly LeakFinding[]): FindingGroup[] {
  const groups = new Map<string, FindingGroup>();
  for (const f of findings) {
    const key = JSON.stringify([f.program, f.test]);
    const group = groups.get(key) ?? { program: f.program, test: f.test, findings: [] };
    group.findings.push(f);
    groups.set(key, group);
  }
  const order = (g: FindingGroup): string => `${g.program}\u0000${g.test ?? ""}`;
  return [...groups.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/**
 * The goroutine as the grouped table shows it: the chain of entries below its test (or
 * below main.main), "#n" for the n-th sibling of one `go` statement; the (sub)test's own
 * goroutine or the root as such. The full canonical id is in --json.
 */
export function shortGoroutine(goroutine: string, test: string | null): string {
  const { root, segments } = splitCanonicalId(goroutine);
  const subtests = test === null ? 0 : test.split("/").length - 1;
  const below = segments.slice(subtests);
  if (below.length === 0) return test === null ? root : subtests === 0 ? "(test goroutine)" : "(subtest goroutine)";
  return below.map((s) => (s.ordinal === 0 ? s.entry : `${s.entry}#${s.ordinal}`)).join(" > ");
}

/** A table whose rows come in titled groups, columns aligned across all of them. */
function groupedTable(
  header: readonly string[],
  groups: readonly { title: string; rows: readonly (readonly string[])[] }[],
): string {
  const all = groups.flatMap((g) => g.rows);
  const widths = header.map((h, i) => Math.max(h.length, ...all.map((r) => r[i].length)));
  const line = (cells: readonly string[]): string => `  ${cells.map((c, i) => pad(c, widths[i])).join("  ")}`.trimEnd();
  return groups.map((g) => [g.title, line(header), ...g.rows.map(line)].join("\n")).join("\n\n");
}

/** The early-detection depth of a row: in every run, in the runs where it ended blocked (†), or none in the trace. */
function earlyDepth(early: LeakFinding["early"]): string {
  if (early.firstDepthAllRuns !== null) return String(early.firstDepthAllRuns);
  return early.firstDepthAllBlockedRuns === null ? MISSING : `${early.firstDepthAllBlockedRuns}†`;
}

function findingRow(f: LeakFinding): string[] {
  return [
    f.verdict,
    shortGoroutine(f.goroutine, f.test),
    f.reason + (f.formal ? " *" : ""),
    f.kind,
    f.isRoot ? "(root)" : (f.creationSiteKey ?? shortSite(f.creationSite)),
    shortSite(f.blockingSite),
    `${f.runsBlocked}/${f.runsSeen}`,
    f.pUnblockUpper.toFixed(3),
    earlyDepth(f.early),
    f.why,
  ];
}

/**
 * One row per goroutine that -test.count repeated: the same test's goroutine in each
 * repetition (roots TestX, TestX#1, …) shows the same chain, kind and sites, so those rows
 * become one with the count after the goroutine ("×20") and the widest bound and depth;
 * the why is the first one's. --json keeps every goroutine.
 */
function mergeRepeats(findings: readonly LeakFinding[]): string[][] {
  const rows = new Map<string, { row: string[]; count: number }>();
  for (const f of findings) {
    const row = findingRow(f);
    const key = JSON.stringify([row[0], row[1], row[2], row[3], row[4], row[5]]);
    const seen = rows.get(key);
    if (seen === undefined) rows.set(key, { row, count: 1 });
    else {
      seen.count++;
      seen.row[7] = Math.max(Number(seen.row[7]), Number(row[7])).toFixed(3);
    }
  }
  return [...rows.values()].map(({ row, count }) =>
    count === 1 ? row : [row[0], `${row[1]} ×${count}`, ...row.slice(2)],
  );
}

/** The sections of the terminal form, in the order a reader needs them. */
const KIND_SECTIONS: readonly { readonly title: string; readonly pick: (f: LeakFinding) => boolean }[] = [
  {
    title: "Blocked forever (counted by --fail-on-leak)",
    pick: (f) => (f.kind === "leak" || f.kind === "deadlock") && f.gating,
  },
  {
    title: "Blocked for most of a run the deadline cut (likely; not counted on their own)",
    pick: (f) => f.kind === "leak" && !f.gating,
  },
  {
    title: "Outlived its test or program (alive: a timer, ticker or context can still wake it; --fail-on-outlived)",
    pick: (f) => f.kind === "outlived",
  },
  {
    title: "Inconclusive (a goroutine that woke the same wait was still live when the trace stopped)",
    pick: (f) => f.kind === "inconclusive",
  },
  {
    title: "Background (predates the test, or belongs to init, TestMain or package state; --fail-on-background)",
    pick: (f) => f.kind === "background",
  },
];

/** Counts per kind, for the headline: "2 blocked forever (1 proven), 1 outlived, …". */
export function kindCounts(
  findings: readonly LeakFinding[],
  options: { readonly blockedForever?: boolean } = {},
): string {
  const blocked = findings.filter((f) => (f.kind === "leak" || f.kind === "deadlock") && f.gating);
  const parts =
    options.blockedForever === false
      ? []
      : [`${blocked.length} blocked forever (${blocked.filter((f) => f.verdict === "proven").length} proven)`];
  const cut = findings.filter((f) => f.kind === "leak" && !f.gating).length;
  if (cut > 0) parts.push(`${cut} only in cut runs`);
  for (const kind of ["outlived", "inconclusive", "background"] as const) {
    const n = findings.filter((f) => f.kind === kind).length;
    if (n > 0) parts.push(`${n} ${kind}`);
  }
  return parts.join(", ");
}

function crashSection(analysis: LeakAnalysis): string {
  if (analysis.blockedAtCrash.length === 0) return "";
  const rows = analysis.blockedAtCrash.map((b) => [
    b.program,
    b.test ?? "-",
    shortGoroutine(b.goroutine, b.test),
    b.reason,
    shortSite(b.blockingSite),
    String(b.runsCrashed),
  ]);
  return (
    `Blocked when a run crashed (a panic or fatal error ended the wait; not leaks, runs that crashed are ` +
    `left out above):\n` +
    `${table(["program", "test", "goroutine", "reason", "blocked at", "crashed runs"], rows)}`
  );
}

function raceSection(analysis: LeakAnalysis): string {
  const checked = analysis.raceRunsChecked;
  if (analysis.races.length === 0) return checked === 0 ? "" : `No data race in ${checked} -race run(s).`;
  const rows = analysis.races.map((r) => [
    r.program,
    `${r.accesses[0]} ${shortSite(r.frames[0])}`,
    `${r.accesses[1]} ${shortSite(r.frames[1])}`,
    r.createdAt.map((c) => (c === null ? "?" : shortSite(c))).join(", "),
    `${r.runs}/${r.runsChecked}`,
  ]);
  return (
    `${plural(analysis.races.length, "data race")} reported by -race runs (both accesses' top user ` +
    `frames; runs: reporting / searched):\n` +
    `${table(["program", "access", "racing with", "goroutines created at", "runs"], rows)}`
  );
}

/** A failure's message, indented under its finding, up to `max` lines. */
function messageLines(message: string, indent: string, max = 12): string[] {
  const lines = message.split("\n");
  const shown = lines.slice(0, max).map((l) => `${indent}${l}`);
  return lines.length > max ? [...shown, `${indent}… ${lines.length - max} more line(s) in --json`] : shown;
}

function runLine(run: FailureRunRef, replay: string): string {
  return `replay: ${replay}  (run ${run.runId}, ${run.strategy} ${run.config}${run.seed === null ? "" : `, seed ${run.seed}`})`;
}

/** Tests that fail in every run that said something of them, each with its whole message (an Example's got/want). */
function failingSection(analysis: LeakAnalysis): string {
  if (analysis.failing.length === 0) return "";
  const blocks = analysis.failing.map((f) =>
    [
      `FAILING  ${f.program}  ${f.test ?? "(main)"}  failed in ${plural(f.runsFailed, "run")}` +
        `${f.plainRunsFailed > 0 ? ` (${f.plainRunsFailed} plain)` : ""}` +
        `${f.cutRunsFailed > 0 ? `, ${f.cutRunsFailed} of them cut by the deadline after the failure` : ""}`,
      ...messageLines(f.message === "" ? "(no message)" : f.message, "    "),
      `  ${runLine(f.run, f.replay)}`,
    ].join("\n"),
  );
  return (
    "Failing tests (failed in every run that finished, plain runs included; --fail-on-failing): " +
    `${plural(analysis.failing.length, "test")}\n\n${blocks.join("\n\n")}`
  );
}

/** What the untraced rerun of a crash says, in words. */
function untracedText(untraced: CrashFinding["untraced"]): string {
  switch (untraced) {
    case "ok":
      return "passed when rerun without the tracer";
    case "failed":
      return "rerun without the tracer, it failed without crashing";
    case "crashed":
      return "crashed again when rerun without the tracer: not the tracer's doing";
    case null:
      return "";
  }
}

/** Panics and fatal errors that killed the binary in every run of their test: the test charged, header, stack, the run to replay. */
function crashedSection(analysis: LeakAnalysis): string {
  if (analysis.crashed.length === 0) return "";
  const blocks = analysis.crashed.map((c) => {
    const rerun = untracedText(c.untraced);
    return [
      `CRASH ${c.kind}  ${c.program}  ${c.test ?? "(no test running)"}  in ${plural(c.runsCrashed, "run")}` +
        `${rerun === "" ? "" : `; ${rerun}`}`,
      `    ${c.header}`,
      ...c.stack.map((frame) => `        ${frame}`),
      // What the message says besides the header and the frames: the running tests, when several were.
      ...c.message
        .split("\n")
        .slice(1 + c.stack.length)
        .filter((l) => l.trim() !== "")
        .map((l) => `    ${l.trim()}`),
      `  ${runLine(c.run, c.replay)}`,
    ].join("\n");
  });
  const count = `${analysis.crashed.length} crash${analysis.crashed.length === 1 ? "" : "es"}`;
  return `Crashes (a panic or fatal error killed the binary; --fail-on-failing): ${count}\n\n${blocks.join("\n\n")}`;
}

function flakySection(analysis: LeakAnalysis): string {
  const parts: string[] = [];
  if (analysis.flaky.length > 0) {
    const rows = analysis.flaky.map((f) => [
      f.program,
      f.test ?? "(main)",
      f.kind,
      `${f.runsFailed} failed / ${f.runsPassed} passed`,
      f.plainRunsFailed === 0
        ? "only under " + [...new Set(f.strategies.map((x) => x.split(" ")[0]))].join(", ")
        : `also plain (${f.plainRunsFailed})`,
      f.summary,
    ]);
    const replays = analysis.flaky.map(
      (f) =>
        `  ${f.program} ${f.test ?? ""}: ${f.replay}  (run ${f.run.runId}, ${f.run.strategy} ${f.run.config}` +
        `${f.run.seed === null ? "" : `, seed ${f.run.seed}`})`,
    );
    parts.push(
      `Flaky under schedule (failed on some schedules, passed on others; --fail-on-flaky):\n` +
        `${table(["program", "test", "kind", "runs", "when", "failure"], rows)}\nReplay:\n` +
        `${replays.join("\n")}`,
    );
  }
  if (analysis.tracerInduced.length > 0) {
    const lines = analysis.tracerInduced.map((t) =>
      t.kind === "fail"
        ? `  ${t.program} ${t.test ?? ""} (${plural(t.runs, "run")}): ${t.message.split("\n").slice(-1)[0] ?? ""}`
        : [
            `  ${t.program} ${t.test ?? ""} (${plural(t.runs, "run")}): ${t.kind} ${t.message.split("\n")[0] ?? ""}`,
            ...t.message
              .split("\n")
              .slice(1)
              .map((l) => `      ${l.trim()}`),
            `      ${runLine(t.run, t.replay)}`,
          ].join("\n"),
    );
    parts.push(
      `Failures caused by the tracer itself, not by the code (a leak check that saw the tracer's goroutine, a crash ` +
        `its untraced rerun did not repeat; never counted by a gate):\n${lines.join("\n")}`,
    );
  }
  return parts.join("\n\n");
}

/**
 * How runs ended, per program where it needs saying: runs the deadline cut (they say less:
 * findings of cut runs are not counted on their own; --timeout gives them room), a main
 * program's runs stopped at the end of its budget (a daemon), hangs the runtime proved, cut
 * runs that hung in goroutine 1 outside the user's goroutines (where), unreadable traces.
 */
function runEndsSection(analysis: LeakAnalysis): string {
  const lines: string[] = [];
  for (const p of analysis.programs) {
    const e = p.runEnds;
    if (!runEndsWorthSaying(e)) continue;
    const parts: string[] = [];
    if (e.cut > 0) parts.push(`${plural(e.cut, "run")} cut at the deadline (raise --timeout to let them end)`);
    if (e.budget > 0) parts.push(`${plural(e.budget, "run")} still going when the budget ran out`);
    if (e.hung > 0) parts.push(`${plural(e.hung, "run")} proven hung by the runtime and stopped`);
    if (e.unreadable.length > 0)
      parts.push(`${plural(e.unreadable.length, "trace")} unreadable (${e.unreadable[0].why}), not judged`);
    lines.push(`  ${p.program}${parts.length === 0 ? "" : `: ${parts.join("; ")}`}`);
    if (e.daemon !== null)
      lines.push(`    a daemon: main parks at ${siteLine(e.daemon)} for the program's lifetime (not a leak)`);
    const where = new Map<string, number[]>();
    for (const o of e.outside) {
      const key = `${o.wait}${o.top === null ? "" : ` at ${shortSite(o.top)}`}`;
      where.set(key, [...(where.get(key) ?? []), o.runId]);
    }
    for (const [key, runIds] of where)
      lines.push(
        `    hung outside the user's goroutines: goroutine 1 (the test driver: an example or TestMain) waited in ` +
          `${key} (${plural(runIds.length, "run")}: ${runIds.slice(0, 5).join(", ")}) — not a deadlock`,
      );
  }
  return lines.length === 0
    ? ""
    : `How runs ended (findings of cut runs are not counted on their own):
${lines.join("\n")}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** Programs that did not build, each with the first lines of the compiler's output: nothing of them ran. */
function buildErrorSection(analysis: LeakAnalysis): string {
  const failed = analysis.buildErrors ?? [];
  if (failed.length === 0) return "";
  const lines = failed.map((b) => {
    const output = b.output.split("\n").filter((l) => l.trim() !== "");
    const shown = output.slice(0, 5).map((l) => `    ${l}`);
    return [
      `  ${b.program}:`,
      ...shown,
      ...(output.length > 5 ? [`    … (${output.length - 5} more line(s); schedlab collect prints them all)`] : []),
    ].join("\n");
  });
  return `Not analysed for leaks: ${plural(failed.length, "program")} did not build (fix the build, then collect again):\n${lines.join("\n")}`;
}

/** Frames of a stack shown under a goroutine: enough to see the path into the wait. */
const STACK_FRAMES_SHOWN = 4;

function stackLines(stack: readonly string[], indent: string): string[] {
  const shown = stack.slice(0, STACK_FRAMES_SHOWN).map((frame) => `${indent}${shortSite(frame)}`);
  return stack.length > STACK_FRAMES_SHOWN
    ? [...shown, `${indent}… ${stack.length - STACK_FRAMES_SHOWN} more frame(s) in --json`]
    : shown;
}

/** Bugs in the order a reader needs them: blocked forever first (proven, likely, cut), then outlived, inconclusive, background. */
const BUG_SECTIONS: readonly { readonly title: string; readonly pick: (b: BugReport) => boolean }[] = [
  {
    title: "Blocked forever (counted by --fail-on-leak)",
    pick: (b) => (b.kind === "leak" || b.kind === "deadlock") && b.gating,
  },
  {
    title: "Blocked for most of a run the deadline cut (not counted on their own)",
    pick: (b) => b.kind === "leak" && !b.gating,
  },
  { title: "Outlived its test or program (--fail-on-outlived)", pick: (b) => b.kind === "outlived" },
  { title: "Inconclusive", pick: (b) => b.kind === "inconclusive" },
  { title: "Background (--fail-on-background)", pick: (b) => b.kind === "background" },
];

/** What the runtime proves, in words: "runtime: unreachable (leaked)". */
const RUNTIME_WORDS: Readonly<Record<NonNullable<Evidence["runtime"]>, string>> = {
  leaked: "unreachable (the leak profile proved it)",
  reachable: "what it waits on is still reachable",
  hang: "goroutine 1 could never go on (the run was stopped)",
};

/** A bug's evidence by kind, one line: "runtime: unreachable (…); trace: never-woken; source: context case". */
export function evidenceText(e: Evidence): string {
  return [
    `runtime: ${e.runtime === null ? "no proof from a leak profile" : RUNTIME_WORDS[e.runtime]}`,
    `trace: ${e.trace}`,
    `source: ${e.source === null ? "no timer, context or signal case" : `${e.source} case`}`,
  ].join("; ");
}

/** One bug: its verdict first, then why, its goroutines with where they wait and how they got there, and what to run next. */
function bugBlock(bug: BugReport, findings: ReadonlyMap<string, LeakFinding>): string {
  const head = `${bug.verdict.toUpperCase()} ${bug.kind}  ${bug.program}${bug.test === null ? "" : `  ${bug.test}`}  [${bug.fingerprint}]`;
  const why = bug.explained?.explanation.text ?? bug.why;
  const addsToWhy =
    bug.explained !== null && bug.explained.explanation.cycle === null && bug.why !== "" && !why.includes(bug.why);
  const lines = [head, `  ${why}${addsToWhy ? ` (${bug.why})` : ""}`, `  evidence: ${evidenceText(bug.evidence)}`];
  const repeats = new Map<string, { finding: LeakFinding; count: number }>();
  for (const id of bug.goroutines) {
    const f = findings.get(id);
    if (f === undefined) continue;
    const key = `${shortGoroutine(f.goroutine, f.test).replace(/#\d+$/, "")}|${f.blockingSite}|${f.wait}`;
    const seen = repeats.get(key);
    if (seen === undefined) repeats.set(key, { finding: f, count: 1 });
    else seen.count++;
  }
  const differing = new Map(bug.differing.map((m) => [m.goroutine, m]));
  for (const { finding: f, count } of repeats.values()) {
    const created = f.isRoot ? "root" : `created at ${f.creationSiteKey ?? shortSite(f.creationSite)}`;
    // A goroutine the rule judged otherwise than its bug says so, with why: never a silent mismatch.
    const own = differing.get(f.goroutine);
    lines.push(
      `  ${goroutineLabel(f.goroutine)}${count > 1 ? ` ×${count}` : ""}: ${f.wait} at ` +
        `${siteLine(f.blockingSite)} (${created}; blocked in ${f.runsBlocked}/${f.runsSeen} runs, P(unblock) ` +
        `≤ ${f.pUnblockUpper.toFixed(3)})`,
    );
    if (own !== undefined) lines.push(`      on its own: ${own.verdict} ${own.kind} — ${own.why}`);
    lines.push(...stackLines(f.explanation?.stack ?? [], "      "));
  }
  if (bug.replay !== null) lines.push(`  replay: ${bug.replay}`);
  if (bug.trace !== null) lines.push(`  trace: go tool trace ${bug.trace}`);
  return lines.join("\n");
}

function bugSections(analysis: LeakAnalysis): string[] {
  const findings = new Map(analysis.findings.map((f) => [`${f.program}\u0000${f.goroutine}`, f]));
  return BUG_SECTIONS.map((section) => {
    const picked = analysis.bugs.filter(section.pick);
    if (picked.length === 0) return "";
    const blocks = picked.map((bug) =>
      bugBlock(bug, new Map(bug.goroutines.map((g) => [g, findings.get(`${bug.program}\u0000${g}`) as LeakFinding]))),
    );
    return `${section.title}: ${plural(picked.length, "bug")}\n\n${blocks.join("\n\n")}`;
  }).filter((s) => s !== "");
}

function potentialBlock(p: PotentialDeadlock): string {
  const lines = [`POTENTIAL ${p.pattern}  ${p.program}  ${p.owner}  [${p.fingerprint}]`, `  ${p.why}`];
  for (const step of p.steps) {
    lines.push(
      `  ${goroutineLabel(step.goroutine)}: took ${siteLine(step.heldAt)}, then asked at ${siteLine(step.takenAt)}`,
    );
    lines.push(
      ...stackLines(
        (step.takenStack ?? "")
          .split(";")
          .slice(1)
          .filter((f) => f !== ""),
        "      ",
      ),
    );
  }
  lines.push(
    `  seen in ${plural(p.runIds.length, "run")} (${p.runIds.slice(0, 5).join(", ")}${p.runIds.length > 5 ? ", …" : ""}), none of which hung on it`,
  );
  return lines.join("\n");
}

function potentialSection(analysis: LeakAnalysis): string {
  if (analysis.potentialDeadlocks.length === 0) return "";
  return (
    `Potential deadlocks (from the lock orders the runs recorded, though none hung on them; --fail-on-potential): ` +
    `${plural(analysis.potentialDeadlocks.length, "finding")}\n\n` +
    `${analysis.potentialDeadlocks.map(potentialBlock).join("\n\n")}`
  );
}

/** The headline: bugs per kind with their verdicts, then potential deadlocks. */
export function bugCounts(analysis: LeakAnalysis): string {
  const blocked = analysis.bugs.filter((b) => (b.kind === "leak" || b.kind === "deadlock") && b.gating);
  const proven = blocked.filter((b) => b.verdict === "proven").length;
  const parts = [
    `${plural(blocked.length, "bug")} blocking goroutines forever (${proven} proven, ${blocked.length - proven} likely)`,
  ];
  for (const kind of ["outlived", "inconclusive", "background"] as const) {
    const n = analysis.bugs.filter((b) => b.kind === kind).length;
    if (n > 0) parts.push(`${n} ${kind}`);
  }
  if (analysis.potentialDeadlocks.length > 0) parts.push(`${analysis.potentialDeadlocks.length} potential deadlock(s)`);
  return parts.join(", ");
}

/**
 * The terminal form: findings grouped by program and by test and subtest
 * ("TestPool/go_without_wait/before_wait"), with short goroutine chains and sites; then
 * goroutines blocked at a crash, and data races.
 */
export function formatFindings(analysis: LeakAnalysis): string {
  const notAnalysed = [
    buildErrorSection(analysis),
    analysis.withoutRuns.length > 0
      ? `Not analysed for leaks (no ingested runs; run schedlab ingest first): ${analysis.withoutRuns.join(", ")}`
      : "",
  ]
    .filter((s) => s !== "")
    .join("\n\n");
  const extra = [
    runEndsSection(analysis),
    failingSection(analysis),
    crashedSection(analysis),
    flakySection(analysis),
    crashSection(analysis),
    raceSection(analysis),
    ...analysis.notes.map((n) => `Note: ${n}`),
  ].filter((s) => s !== "");
  const potential = potentialSection(analysis);
  if (analysis.findings.length === 0) {
    return [
      `No leaked or deadlocked goroutines in ${analysis.programs.length} program(s).`,
      potential,
      ...extra,
      notAnalysed,
    ]
      .filter((s) => s !== "")
      .join("\n\n");
  }
  const header = [
    "verdict",
    "goroutine",
    "reason",
    "kind",
    "created at",
    "blocked at",
    "blocked",
    "P(unblock)≤",
    "depth",
    "why",
  ];
  const sections = KIND_SECTIONS.map((section) => {
    const picked = analysis.findings.filter(section.pick);
    if (picked.length === 0) return "";
    const groups = groupFindings(picked).map((g) => ({
      title: g.test === null ? g.program : `${g.program}  ${g.test}`,
      rows: mergeRepeats(g.findings),
    }));
    return `${section.title}:\n${groupedTable(header, groups)}`;
  }).filter((s) => s !== "");
  const notes = [
    `${bugCounts(analysis)} — in ${new Set(analysis.findings.map((f) => f.program)).size} of ` +
      `${analysis.programs.length} program(s). Goroutines: ${kindCounts(analysis.findings)}; --json gives ` +
      `each goroutine's full canonical id and stack.`,
    "verdict: proven needs a proof — the runtime's goroutine leak profile (unreachable), a hang of every " +
      "goroutine of the process, a cycle of waits, or a wait nothing can end (select {}, a nil channel); " +
      "likely: the trace and the source say so, and the text says which proof is missing; inconclusive.",
    "* select: the formal signature. blocked: runs where it ends blocked / runs it appears in (below 1: schedule-dependent).",
    "depth: first event index from which the signature holds in every run (†: only in the runs where it ends blocked).",
    BOUND_FORMULA,
  ];
  if (notAnalysed !== "") notes.push(notAnalysed);
  return [
    ...bugSections(analysis),
    potential,
    sections.length > 0 ? `Goroutines (detail):\n\n${sections.join("\n\n")}` : "",
    ...extra,
    notes.join("\n"),
  ]
    .filter((s) => s !== "")
    .join("\n\n");
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
    verdict: f.verdict,
    gating: f.gating,
    why: f.why,
    evidence: f.evidence,
    owner: f.owner,
    wakers: f.wakers,
    wakesAtSite: f.wakesAtSite,
    test: f.test,
    blockedFraction: f.blockedFraction,
    runsWoken: f.runsWoken,
    entry: f.entry,
    isRoot: f.isRoot,
    creationSiteKey: f.creationSiteKey,
    early: f.early,
    wait: f.wait,
    bug: f.bug,
    explanation: f.explanation,
  };
}

/**
 * The version of `leaks --json`'s layout. 4: `failing` (tests failing in every run) and
 * `crashed` (panics and fatal errors), `counts.failing`, `programs[].failing` and `.crashed`;
 * flaky and tracer-induced failures may be of kind `fatal`, and a tracer-induced failure has
 * its kind, untraced rerun's outcome, run and replay; each finding's `evidence` (runtime,
 * trace, source) and reasons network and syscall (outlived); `programs[].runEnds` (cut,
 * budget, hung, outside, unreadable, daemon). 3: `bugs` (findings grouped, with fingerprint,
 * verdict, explanation, replay and trace), `potentialDeadlocks`, and each finding's `wait`,
 * `bug` and `explanation` (stack, who it waits for, cycle); counts count bugs. 2: findings carry kind (leak, deadlock, outlived,
 * background, inconclusive), verdict, gating, why, owner, wakers and wakesAtSite, and the
 * output has flaky, tracerInduced, counts and notes; 1 (unversioned): leak and deadlock only.
 */
export const LEAKS_JSON_VERSION = 4;

export function analysisJson(analysis: LeakAnalysis): Record<string, unknown> {
  return {
    version: LEAKS_JSON_VERSION,
    bugs: analysis.bugs,
    potentialDeadlocks: analysis.potentialDeadlocks,
    findings: analysis.findings.map(findingJson),
    blockedAtCrash: analysis.blockedAtCrash,
    races: analysis.races,
    raceRunsChecked: analysis.raceRunsChecked,
    failing: analysis.failing,
    flaky: analysis.flaky,
    crashed: analysis.crashed,
    tracerInduced: analysis.tracerInduced,
    counts: gateCounts(analysis),
    notes: analysis.notes,
    programs: analysis.programs.map((p) => ({
      program: p.program,
      runs: p.runs,
      crashedRuns: p.crashedRuns,
      findings: p.findings.length,
      bugs: p.bugs.length,
      potentialDeadlocks: p.potential.length,
      blockedForever: p.findings.filter((f) => f.gating).length,
      blockedAtCrash: p.blockedAtCrash.length,
      raceRunsChecked: p.raceRunsChecked,
      races: p.races.length,
      flaky: p.flaky.length,
      failing: p.failing.length,
      crashed: p.crashed.length,
      runEnds: p.runEnds,
    })),
    withoutRuns: analysis.withoutRuns,
    buildErrors: analysis.buildErrors ?? [],
    bound: BOUND_FORMULA,
  };
}

function countsRow(label: string, c: Counts): string[] {
  return [
    label,
    String(c.truePositives),
    String(c.falsePositives),
    String(c.missed),
    fixed(c.precision),
    fixed(c.recall),
    fixed(c.f1),
  ];
}

const COUNT_HEADER = ["TP", "FP", "missed", "precision", "recall", "F1"];

function groupTable(title: string, groups: Readonly<Record<string, Counts>>): string {
  return `${title}\n${table(
    [title.split(" ")[0], ...COUNT_HEADER],
    Object.entries(groups).map(([g, c]) => countsRow(g, c)),
  )}`;
}

function scoreDetails(score: LeakScore): string {
  return [
    groupTable("reason (schedlab)", score.byReason),
    groupTable("bug class (schedlab)", score.byBugClass),
    `clean programs: ${score.cleanPrograms}, flagged: ${score.cleanProgramsFlagged}, false positives on them: ${score.falsePositivesOnClean}`,
  ].join("\n\n");
}

export function formatScore(report: LeakScoreReport): string {
  const rows = report.detectors.map((d: DetectorScore) => [
    ...countsRow(d.detector, d.score.overall),
    `${d.programsCovered}/${report.labelledPrograms}`,
    String(d.score.falsePositivesOnClean),
  ]);
  const own = report.detectors.find((d) => d.detector === "schedlab");
  const missedLines = (own?.score.programs ?? [])
    .filter((p) => p.missed.length > 0 || p.falsePositives.length > 0 || p.kindDiffers.length > 0)
    .map(
      (p) =>
        `  ${p.program}: ${[
          ...p.missed.map((e) => `missed ${e.site ?? e.creator} ${e.reason}`),
          ...p.falsePositives.map((f) => `FP ${f.siteKey ?? f.root} ${f.reason ?? "?"}`),
          ...p.kindDiffers.map(
            (e) =>
              `found ${e.site ?? e.creator} ${e.reason} as ` +
              `${(e.finding ?? "blocked-forever") === "outlived" ? "blocked forever" : "outlived"}, labelled ` +
              `${e.finding ?? "blocked-forever"}`,
          ),
        ].join("; ")}`,
    );
  return [
    `${report.labelledPrograms} labelled program(s) scored, ${report.unlabelledPrograms} without a manifest.`,
    table(["detector", ...COUNT_HEADER, "covered", "FP on clean"], rows),
    own === undefined ? "" : scoreDetails(own.score),
    missedLines.length > 0
      ? `schedlab misses, false positives and kinds that differ from the label:\n${missedLines.join("\n")}`
      : "",
    report.flaky.expected + report.flaky.unexpected.length === 0
      ? ""
      : `flaky tests: ${report.flaky.found} of ${report.flaky.expected} labelled found` +
        (report.flaky.missed.length > 0 ? `; missed: ${report.flaky.missed.join(", ")}` : "") +
        (report.flaky.unexpected.length > 0
          ? `; reported on tests not labelled flaky: ${report.flaky.unexpected.join(", ")}`
          : ""),
  ]
    .filter((s) => s !== "")
    .join("\n\n");
}
