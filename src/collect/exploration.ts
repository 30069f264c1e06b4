// One program's budgeted exploration (collect --budget) while it is under way: its state,
// resumed from what the database records, and the rules of its course: the next
// configuration, whether it wants another run, what a plain run teaches it, what a checked
// run confirms, and how it ends. Pure but for the state it updates; budget.ts schedules.

import { failureKey, stopsHunt, storedCheck } from "./check.js";
import type { CheckedRunRow, ExplorationRow, ExploredRunRow } from "./exploration-store.js";
import type { ProgramSpec } from "../corpus/index.js";
import { parseFailures, withUntracedRerun } from "./failures.js";
import { parseConfigKey, type Strategy } from "./strategy.js";
import type {
  BudgetMode,
  ExplorationFinding,
  ExplorationSummary,
  FindingClass,
  RunCheck,
  RunConfig,
  RunOutcome,
  StopReason,
} from "./types.js";
import { endedByItself } from "./timeout.js";

export interface Exploring {
  readonly program: ProgramSpec;
  readonly id: number;
  readonly cycle: readonly RunConfig[];
  readonly nextIndex: Map<string, number>;
  /** Strategies that cannot be built for this program → why. */
  readonly unavailable: Map<Strategy, string>;
  readonly budgetMs: number;
  /** Wall time of the program's runs and their checks; builds are counted apart (buildMs). */
  spentMs: number;
  buildMs: number;
  runs: number;
  status: ExplorationRow["status"];
  /** The first run confirming a class of stopOn: the hunt is over. */
  finding: ExplorationFinding | null;
  findingRunId: number | null;
  /** The first run confirming each class, in the order confirmed. */
  readonly findings: ExplorationFinding[];
  /** failureKey of every failure (not tracer-induced) of the program's plain runs so far. */
  readonly failedInPlain: Set<string>;
  /**
   * The longest run of each strategy so far that ended by itself, per -test.count iteration:
   * the expected cost of its next run; the plain one's gives the derived deadlines (plainMsPerIteration).
   */
  readonly msPerIteration: Map<Strategy, number>;
  /** Whether a plain run of the program has ended (here or in an earlier collect): until then, without --timeout, one run at a time. */
  plainRunEnded: boolean;
  /** Runs stopped at their deadline, this collect's and earlier ones'. */
  cutRuns: number;
  /** Runs of a main program that had not exited when its budget ran out (a daemon's lifetime), stopped then. */
  budgetStops: number;
  /** Runs the runtime proved hung and the run agent stopped. */
  hungRuns: number;
  inFlight: number;
  finished: boolean;
}

/** What the program's recorded runs say (exploration-store: checkedRuns, exploredRuns). */
export interface RecordedRuns {
  readonly checked: readonly CheckedRunRow[];
  readonly runs: readonly ExploredRunRow[];
}

/** The command that reruns run `runId` with its configuration and seed. */
export function replayCommand(runId: number, db: string): string {
  return `schedlab collect --replay ${runId} --db ${db}`;
}

/**
 * A program's exploration as this collect starts it: its saved row (null for a new or
 * forced one) and recorded runs decide, under this collect's stop set; a finding of a class
 * it does not stop on leaves the hunt open. Resumed hunts go on where they stopped.
 */
export function resumedExploration(
  start: {
    readonly program: ProgramSpec;
    readonly id: number;
    readonly cycle: readonly RunConfig[];
    readonly nextIndex: Map<string, number>;
  },
  row: ExplorationRow | null,
  recorded: RecordedRuns,
  mode: BudgetMode,
  dbPath: string,
): Exploring {
  const state: Exploring = {
    ...start,
    unavailable: new Map(),
    budgetMs: mode.budgetMs,
    spentMs: row?.spentMs ?? 0,
    buildMs: 0,
    runs: row?.runs ?? 0,
    status: row?.status ?? "exploring",
    finding: null,
    findingRunId: null,
    findings: [],
    failedInPlain: new Set(),
    msPerIteration: new Map(),
    plainRunEnded: recorded.runs.some((r) => r.strategy === "plain"),
    cutRuns: 0,
    budgetStops: 0,
    hungRuns: 0,
    inFlight: 0,
    finished: false,
  };
  // From its runs (ordinary collects' too): the tests that fail anyway in plain runs, how long each strategy takes, the cut runs.
  for (const run of recorded.runs)
    learnFromRun(state, {
      strategy: run.strategy,
      outcome: run.outcome,
      wallMs: run.wallMs,
      testCount: parseConfigKey(run.config)?.testCount ?? null,
      stopReason: run.stopReason,
      failures: withUntracedRerun(parseFailures(run.outputDigest ?? run.stderrTail ?? ""), run.untraced),
    });
  // The checked runs (not replays) confirming any class, in run order.
  for (const run of recorded.checked) {
    const check = storedCheck(run.detail);
    if (check.classes.length === 0) continue;
    const finding = {
      runId: run.id,
      config: run.config,
      strategy: run.strategy,
      seed: run.seed,
      atMs: null,
      atRun: null,
      check,
      replay: replayCommand(run.id, dbPath),
    };
    for (const c of check.classes)
      if (!state.findings.some((x) => x.class === c)) state.findings.push({ ...finding, class: c });
    if (state.finding === null && stopsHunt(check.classes, mode.stopOn)) {
      state.finding = { ...finding, class: check.classes.find((c) => mode.stopOn.includes(c))! };
      state.findingRunId = run.id;
    }
  }
  if (state.status !== "build-error") state.status = state.finding !== null ? "confirmed" : "exploring";
  return state;
}

/**
 * The next configuration of the cycle whose strategy can be built and that `fits` (what is
 * left of the budget; every configuration by default), from the cycle's position (the run count).
 */
export function nextConfig(s: Exploring, fits: (config: RunConfig) => boolean = () => true): RunConfig | null {
  for (let tried = 0; tried < s.cycle.length; tried++) {
    const config = s.cycle[(s.runs + tried) % s.cycle.length]!;
    if (!s.unavailable.has(config.strategy) && fits(config)) return config;
  }
  return null;
}

/** Whether the program wants another run: it built, has budget left, no finding that ends it, and a configuration that fits. */
export function wantsMore(s: Exploring, mode: BudgetMode, fits?: (config: RunConfig) => boolean): boolean {
  return (
    s.status !== "build-error" &&
    s.spentMs < s.budgetMs &&
    (s.finding === null || mode.exhaustBudget) &&
    nextConfig(s, fits) !== null
  );
}

/** One ended run as the hunt learns from it. */
export interface EndedRun {
  readonly strategy: Strategy;
  readonly outcome: RunOutcome;
  readonly wallMs: number | null;
  readonly testCount: number | null;
  readonly stopReason: StopReason | null;
  readonly failures: RunCheck["failures"];
}

/**
 * What a run teaches the rest of the hunt: the tests that fail anyway (in plain runs), how
 * long a run of its strategy takes when it ends by itself, and whether it was cut or hung.
 */
export function learnFromRun(
  s: Pick<Exploring, "failedInPlain" | "msPerIteration" | "cutRuns" | "budgetStops" | "hungRuns">,
  run: EndedRun,
): void {
  if (run.strategy === "plain") for (const f of run.failures) if (!f.tracerInduced) s.failedInPlain.add(failureKey(f));
  if (run.stopReason === "deadline") s.cutRuns++;
  if (run.stopReason === "budget") s.budgetStops++;
  if (run.stopReason === "hang") s.hungRuns++;
  if (!endedByItself(run.outcome) || run.wallMs === null) return;
  const perIteration = run.wallMs / (run.testCount ?? 1);
  s.msPerIteration.set(run.strategy, Math.max(s.msPerIteration.get(run.strategy) ?? 0, perIteration));
}

/** The longest plain run of `s` so far that ended by itself, per -test.count iteration, or null before any. */
export function plainMsPerIteration(s: Pick<Exploring, "msPerIteration">): number | null {
  return s.msPerIteration.get("plain") ?? null;
}

/** Takes in what run `runId`'s check confirms: the first run of each class, and the first of a stopOn class, which ends the hunt. */
export function confirm(
  s: Exploring,
  run: { readonly runId: number; readonly config: RunConfig; readonly seed: number | null; readonly check: RunCheck },
  stopOn: readonly FindingClass[],
  dbPath: string,
): void {
  const { runId, config, seed, check } = run;
  const found = (c: FindingClass): ExplorationFinding => ({
    class: c,
    runId,
    config: config.key,
    strategy: config.strategy,
    seed,
    atMs: Math.round(s.spentMs),
    atRun: s.runs,
    check,
    replay: replayCommand(runId, dbPath),
  });
  for (const c of check.classes) if (!s.findings.some((f) => f.class === c)) s.findings.push(found(c));
  if (s.finding === null && stopsHunt(check.classes, stopOn)) {
    s.findingRunId = runId;
    s.finding = found(check.classes.find((c) => stopOn.includes(c))!);
  }
}

/** Marks the exploration finished with its final status: confirmed by a finding, else exhausted (or build-error). */
export function finishExploration(s: Exploring): void {
  s.finished = true;
  if (s.status === "exploring") s.status = s.finding !== null ? "confirmed" : "exhausted";
  if (s.status === "confirmed" && s.finding === null) s.status = "exhausted";
}

/** The strategies the program could not build, as saved and summarised ("race: why"). */
function unavailableLines(s: Exploring): string[] {
  return [...s.unavailable].map(([strategy, why]) => `${strategy}: ${why}`);
}

/** The row saved after each run, so an interrupted hunt resumes where it stopped. */
export function explorationRow(s: Exploring): ExplorationRow {
  return {
    budgetMs: s.budgetMs,
    spentMs: s.spentMs,
    runs: s.runs,
    status: s.status,
    findingRunId: s.findingRunId,
    unavailable: unavailableLines(s),
  };
}

export function explorationSummary(s: Exploring, stopOn: readonly FindingClass[]): ExplorationSummary {
  const plainMs = plainMsPerIteration(s);
  return {
    program: s.program.name,
    budgetMs: s.budgetMs,
    spentMs: Math.round(s.spentMs),
    buildMs: Math.round(s.buildMs),
    runs: s.runs,
    cutRuns: s.cutRuns,
    budgetStops: s.budgetStops,
    hungRuns: s.hungRuns,
    plainRunMs: plainMs === null ? null : Math.round(plainMs),
    status: s.status === "exploring" ? "exhausted" : s.status,
    finding: s.finding,
    findings: s.findings,
    stopOn,
    unavailable: unavailableLines(s),
  };
}
