// The text of collect's progress: the status line a terminal redraws (programs, runs, failures
// and ETA; with a budget: the budget spent, findings, and the program being explored), the line
// a log gets every few seconds instead (logProgressLine: counts, findings by class, elapsed,
// ETA), and one line per explored program. Pure: the CLI's writers decide when to print.

import {
  FINDING_CLASSES,
  type CollectProgress,
  type ExplorationFinding,
  type ExplorationSummary,
  type FindingClass,
} from "./types.js";

/** A duration as m:ss, or h:mm:ss from an hour. */
export function clock(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0
    ? `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`
    : `${m}:${String(s).padStart(2, "0")}`;
}

/**
 * One line of progress, e.g. "[#####-----] programs 3/10  runs 14/50  failures 2  ETA 0:42",
 * or with a budget "[##--------] programs 3/10  budget 1:12/5:00  findings 2  runs 57 |
 * kernels/abba/transfer 12.4s/30s procs-2-perturb-count-20".
 */
export function progressLine(p: CollectProgress, width = 20): string {
  if (p.budget !== undefined) {
    const b = p.budget;
    const filled = Math.round((b.totalMs === 0 ? 1 : Math.min(1, b.spentMs / b.totalMs)) * width);
    const bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
    const current =
      b.current === null
        ? ""
        : ` | ${b.current.program} ${seconds(b.current.spentMs)}/${seconds(b.current.budgetMs)} ${b.current.config}`;
    return (
      `${bar} programs ${p.programsDone}/${p.programsTotal}  budget ` +
      `${clock(b.spentMs)}/${clock(b.totalMs)}  findings ${b.findings}  runs ${p.runsDone}${current}`
    );
  }
  const fraction = p.runsTotal === 0 ? 1 : p.runsDone / p.runsTotal;
  const filled = Math.round(fraction * width);
  const bar = `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
  const eta = p.etaMs === null ? "ETA --:--" : `ETA ${clock(p.etaMs)}`;
  return `${bar} programs ${p.programsDone}/${p.programsTotal}  runs ${p.runsDone}/${p.runsTotal}  failures ${p.failures}  ${eta}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
}

/**
 * One line per explored program, e.g. "kernels/abba/transfer: finding after 3.1s, 7 runs
 * (procs-2-perturb-count-20 seed 2): 2 goroutine(s) blocked in sync at transfer_test.go:28
 * — replay: schedlab collect --replay 57 --db schedlab.db". The finding is the run that
 * ended the hunt, of whichever class (leak, race, failure); a hunt that confirmed only
 * classes it does not stop on says which classes did not show ("no leak finding in …").
 */
export function explorationLine(e: ExplorationSummary): string {
  const unavailable =
    e.unavailable.length === 0 ? "" : ` (not built: ${e.unavailable.map((u) => u.split(":")[0]).join(", ")})`;
  if (e.status === "build-error") return `${e.program}: build error`;
  const notes = unavailable + explorationNotes(e);
  if (e.finding === null) {
    const which = e.findings.length > 0 ? `no ${e.stopOn.join(" or ")} finding` : "no finding";
    return `${e.program}: ${which} in ${seconds(e.spentMs)}, ${runs(e.runs)}, of a ${seconds(e.budgetMs)} budget${notes}`;
  }
  const f = e.finding;
  const word = f.class === "failure" ? "failure" : "finding";
  const when =
    f.atMs === null || f.atRun === null
      ? `${word} (recorded earlier)`
      : `${word} after ${seconds(f.atMs)}, ${runs(f.atRun)}`;
  const rest = f.atRun !== null && e.runs > f.atRun ? `; ${seconds(e.spentMs)}, ${runs(e.runs)} in all` : "";
  return `${e.program}: ${when} (${f.config}${f.seed === null ? "" : ` seed ${f.seed}`})${rest}: ${findingText(f)} — replay: ${f.replay}${notes}`;
}

/**
 * What a reader must know of how a program's runs ended: runs the deadline cut (they say
 * less, and a flag can give them room), runs of a main program stopped when its budget ran
 * out (a daemon), hangs the runtime proved, and a plain run longer than the budget (the
 * hunt made that one run). Empty when there is none.
 */
export function explorationNotes(e: ExplorationSummary): string {
  const notes: string[] = [];
  if (e.cutRuns > 0) notes.push(`${runs(e.cutRuns)} cut at the deadline (raise --timeout)`);
  if (e.budgetStops > 0) notes.push(`${runs(e.budgetStops)} still going when the budget ran out (a daemon?)`);
  if (e.hungRuns > 0) notes.push(`${runs(e.hungRuns)} proven hung by the runtime and stopped`);
  if (e.plainRunMs !== null && e.plainRunMs > e.budgetMs)
    notes.push(
      `a plain run takes ${seconds(e.plainRunMs)}, longer than the ${seconds(e.budgetMs)} budget: ` +
        "it got one complete plain run (raise --budget to explore schedules)",
    );
  return notes.length === 0 ? "" : `; ${notes.join("; ")}`;
}

/** What a finding's run showed, for its class. */
function findingText(f: ExplorationFinding): string {
  const c = f.check;
  switch (f.class) {
    case "leak":
      return (
        `${c.blocked.length} goroutine(s) blocked in ` +
        `${[...new Set(c.blocked.map((b) => b.reason))].join(", ")} at ` +
        `${[...new Set(c.blocked.map((b) => shortSite(b.site)))].slice(0, 3).join(", ")}`
      );
    case "race":
      return `${c.races} data race report(s)`;
    case "failure": {
      const failures = c.failures.filter((x) => !x.tracerInduced);
      const names = [
        ...new Set(
          failures.map(
            (x) =>
              `${x.test ?? "(main)"} ${x.kind === "panic" ? "panicked" : x.kind === "fatal" ? "crashed" : "failed"}`,
          ),
        ),
      ];
      return names.length === 0
        ? "a test failed"
        : `${names.slice(0, 3).join(", ")}${names.length > 3 ? `, and ${names.length - 3} more` : ""}`;
    }
  }
}

/** Findings of the programs explored so far. */
export interface FindingTally {
  /** How many explored programs confirmed each class (a program counts once per class); every class present. */
  readonly byClass: Readonly<Record<FindingClass, number>>;
  /** How many explored programs a finding of their stop set ended (status confirmed). */
  readonly ended: number;
}

export function tallyFindings(explorations: readonly ExplorationSummary[]): FindingTally {
  const byClass = Object.fromEntries(FINDING_CLASSES.map((c) => [c, 0])) as Record<FindingClass, number>;
  for (const e of explorations) for (const c of new Set(e.findings.map((f) => f.class))) byClass[c]++;
  return { byClass, ended: explorations.filter((e) => e.finding !== null).length };
}

/** What a log's progress line adds to the last snapshot. */
export interface LogProgressContext {
  /** Wall time since the command started (discovery and builds included). */
  readonly elapsedMs: number;
  /** Time since `progress` was reported (an estimate counts down from then). */
  readonly sinceSnapshotMs: number;
  /** With a budget: the findings of the programs explored so far (onExplored). */
  readonly findings?: FindingTally;
  /** The last line, once collect has finished. */
  readonly final?: boolean;
}

/**
 * The line a log (stderr without a terminal) gets every few seconds instead of the redrawn
 * status line, and once at the end, e.g. "collect: programs 3/10, runs 14/50, 2 not ok;
 * elapsed 1:10, ETA 0:42", or with a budget "collect: programs 3/10, runs 57; findings
 * leak 2, race 1, failure 0; budget 1:12/5:00; elapsed 1:10, ETA 3:48". `progress` is null
 * before the first snapshot (discovery, the first builds). The ETA is left out until it can
 * be estimated: after the first run, or once some budget is spent.
 */
export function logProgressLine(progress: CollectProgress | null, context: LogProgressContext): string {
  const elapsed = `elapsed ${clock(context.elapsedMs)}`;
  const head = context.final === true ? "collect: done:" : "collect:";
  if (progress === null) return `${head} discovering and building; ${elapsed}`;
  const parts = [`programs ${progress.programsDone}/${progress.programsTotal}`];
  let etaMs: number | null = progress.etaMs;
  if (progress.budget === undefined) {
    parts[0] += `, runs ${progress.runsDone}/${progress.runsTotal}${progress.failures > 0 ? `, ${progress.failures} not ok` : ""}`;
  } else {
    const b = progress.budget;
    parts[0] += `, runs ${progress.runsDone}${progress.failures > 0 ? ` (${progress.failures} not ok)` : ""}`;
    if (context.findings !== undefined) {
      const { byClass, ended } = context.findings;
      // budget.findings counts the programs a finding ended, still exploring (their last runs
      // finishing, or --exhaust-budget) or not; their classes are known once they end.
      const pending = Math.max(0, b.findings - ended);
      parts.push(
        `findings ${FINDING_CLASSES.map((c) => `${c} ${byClass[c]}`).join(", ")}${pending > 0 ? ` (+${pending} in programs still exploring)` : ""}`,
      );
    } else {
      parts.push(`findings ${b.findings}`);
    }
    parts.push(`budget ${clock(b.spentMs)}/${clock(b.totalMs)}`);
    // The budget left, at the pace so far (builds and parallel workers included).
    etaMs = b.spentMs <= 0 ? null : (progress.elapsedMs * (b.totalMs - b.spentMs)) / b.spentMs;
  }
  const eta =
    context.final === true || etaMs === null ? "" : `, ETA ${clock(Math.max(0, etaMs - context.sinceSnapshotMs))}`;
  return `${head} ${parts.join("; ")}; ${elapsed}${eta}`;
}

function runs(n: number): string {
  return `${n} run${n === 1 ? "" : "s"}`;
}

/** "pkg.Func file.go:12" → "file.go:12". */
function shortSite(site: string | null): string {
  if (site === null) return "?";
  const space = site.lastIndexOf(" ");
  return space < 0 ? site : site.slice(space + 1);
}
