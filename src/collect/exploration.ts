// One program's budgeted exploration (collect --budget) while it is under way: its state,
// resumed from what the database records, and the rules of its course: the next
// configuration, whether it wants another run, what a plain run teaches it, what a checked
// run confirms, and how it ends. Pure but for the state it updates; budget.ts schedules.

import { failureKey, stopsHunt, storedCheck } from "./check.js";
import type { CheckedRunRow, ExplorationRow, PlainRunRow } from "./exploration-store.js";
import type { ProgramSpec } from "../corpus/index.js";
import { parseFailures } from "./failures.js";
import { parseConfigKey, type Strategy } from "./strategy.js";
import type {
  BudgetMode,
  ExplorationFinding,
  ExplorationSummary,
  FindingClass,
  RunCheck,
  RunConfig,
  RunOutcome,
} from "./types.js";

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
  /** The longest ok plain run so far, per -test.count iteration, for the derived and scaled deadlines. */
  plainOkMsPerIteration: number | null;
  /** Whether a plain run of the program has ended (here or in an earlier collect): until then, without --timeout, one run at a time. */
  plainRunEnded: boolean;
  inFlight: number;
  finished: boolean;
}

/** What the program's recorded runs say (exploration-store: checkedRuns, plainRuns). */
export interface RecordedRuns {
  readonly checked: readonly CheckedRunRow[];
  readonly plain: readonly PlainRunRow[];
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
    plainOkMsPerIteration: null,
    plainRunEnded: recorded.plain.length > 0,
    inFlight: 0,
    finished: false,
  };
  // From its plain runs (ordinary collects' too): the tests that fail anyway and the longest ok run.
  for (const run of recorded.plain)
    learnFromPlainRun(
      state,
      run.outcome,
      run.wallMs,
      parseConfigKey(run.config)?.testCount ?? null,
      parseFailures(run.stderrTail ?? ""),
    );
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

/** The next configuration of the cycle whose strategy can be built (the cycle's position is the run count). */
export function nextConfig(s: Exploring): RunConfig | null {
  for (let tried = 0; tried < s.cycle.length; tried++) {
    const config = s.cycle[(s.runs + tried) % s.cycle.length]!;
    if (!s.unavailable.has(config.strategy)) return config;
  }
  return null;
}

/** Whether the program wants another run: it built, has budget left, no finding that ends it, and a configuration to run. */
export function wantsMore(s: Exploring, mode: BudgetMode): boolean {
  return (
    s.status !== "build-error" &&
    s.spentMs < s.budgetMs &&
    (s.finding === null || mode.exhaustBudget) &&
    nextConfig(s) !== null
  );
}

/** What a plain run teaches the rest of the hunt: the tests that fail anyway, and how long an ok run takes. */
export function learnFromPlainRun(
  s: Pick<Exploring, "failedInPlain" | "plainOkMsPerIteration">,
  outcome: RunOutcome,
  wallMs: number | null,
  testCount: number | null,
  failures: RunCheck["failures"],
): void {
  for (const f of failures) if (!f.tracerInduced) s.failedInPlain.add(failureKey(f));
  if (outcome === "ok" && wallMs !== null)
    s.plainOkMsPerIteration = Math.max(s.plainOkMsPerIteration ?? 0, wallMs / (testCount ?? 1));
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
  return {
    program: s.program.name,
    budgetMs: s.budgetMs,
    spentMs: Math.round(s.spentMs),
    buildMs: Math.round(s.buildMs),
    runs: s.runs,
    status: s.status === "exploring" ? "exhausted" : s.status,
    finding: s.finding,
    findings: s.findings,
    stopOn,
    unavailable: unavailableLines(s),
  };
}
