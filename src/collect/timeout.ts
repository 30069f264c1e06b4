// The deadline of one run, as `go test` has it: the --timeout asked for; without one, go
// test's own 10 minutes for a test binary until one of its plain runs has ended by itself,
// then a deadline derived from that run; shortened by the program's manifest. In a hunt, a
// main program runs for what is left of its budget (a daemon never exits by itself), runs
// that cannot fit what is left are not started, and a run's deadline is capped so that a
// program costs at most its budget plus two plain runs. Pure.

import type { ProgramKind } from "../corpus/index.js";
import type { Strategy } from "./strategy.js";

/**
 * A manifest's timeoutMs may only shorten the deadline: it cuts short a program known to
 * deadlock, and never makes a run outlive the --timeout the user asked for.
 */
export function runTimeoutMs(optionMs: number, manifestMs: number | undefined): number {
  return manifestMs === undefined ? optionMs : Math.min(optionMs, manifestMs);
}

/**
 * `go test`'s default -timeout (go help testflag: "If d is 0, the timeout is disabled. The
 * default is 10 minutes (10m)"): a test binary's deadline until one of its plain runs has
 * ended by itself, so a suite of minutes is never cut where `go test` would not cut it.
 */
export const GO_TEST_DEFAULT_TIMEOUT_MS = 10 * 60_000;

/**
 * A main program's deadline in a collect of N runs until one of its runs has ended by
 * itself: `go run` has none, and a program that never exits needs one. In a hunt a main
 * program runs for its budget instead (budgetedRun).
 */
export const MAIN_FIRST_RUN_TIMEOUT_MS = 10_000;

/** The deadline of a program's first run without --timeout: go test's for a test binary, MAIN_FIRST_RUN_TIMEOUT_MS for a main program. */
export function firstRunTimeoutMs(kind: ProgramKind): number {
  return kind === "test" ? GO_TEST_DEFAULT_TIMEOUT_MS : MAIN_FIRST_RUN_TIMEOUT_MS;
}

/**
 * The deadline derived from a program's plain run that ended by itself, when --timeout is
 * not given (docs/collect.md, "Deadlines"): `factor` × the run's wall time, at least
 * `floorMs` and at most go test's own default. The factor leaves room for other schedules,
 * GOMAXPROCS values and a loaded machine; the floor keeps a fast program's deadline clear of
 * process start and trace flush noise.
 */
export const DERIVED_TIMEOUT = { factor: 5, floorMs: 2_000, ceilingMs: GO_TEST_DEFAULT_TIMEOUT_MS } as const;

export interface ConfiguredTimeoutInput {
  /** --timeout, when given; null derives the deadline. */
  readonly givenMs: number | null;
  /** The program manifest's timeoutMs, if any. */
  readonly manifestMs: number | undefined;
  readonly kind: ProgramKind;
  /**
   * The longest plain run of the program that ended by itself (not cut, not crashed) before
   * this run started, per -test.count iteration (wall ms divided by its count); null before any.
   */
  readonly plainMsPerIteration: number | null;
  /** The run's -test.count (null: one iteration). */
  readonly testCount: number | null;
}

/**
 * The deadline a run is configured with: the given --timeout; else, once the program has a
 * plain run that ended by itself, DERIVED_TIMEOUT's multiple of it (per -test.count iteration
 * × the run's count) between floor and ceiling; else firstRunTimeoutMs. A manifest may
 * shorten it (runTimeoutMs). Test binaries get it as -test.timeout, main programs through
 * the harness; it is the process deadline either way.
 *
 *   configuredTimeoutMs({ givenMs: null, manifestMs: undefined, kind: "test", plainMsPerIteration: null, testCount: null }) → 600000
 *   configuredTimeoutMs({ givenMs: null, manifestMs: undefined, kind: "test", plainMsPerIteration: 300, testCount: null }) → 2000 (5 × 300 = 1500, floor)
 *   configuredTimeoutMs({ givenMs: null, manifestMs: undefined, kind: "main", plainMsPerIteration: 3000, testCount: 2 }) → 30000
 *   configuredTimeoutMs({ givenMs: 7000, manifestMs: undefined, kind: "test", plainMsPerIteration: 300, testCount: null }) → 7000
 */
export function configuredTimeoutMs(input: ConfiguredTimeoutInput): number {
  return runTimeoutMs(input.givenMs ?? derivedTimeoutMs(input), input.manifestMs);
}

function derivedTimeoutMs(input: ConfiguredTimeoutInput): number {
  if (input.plainMsPerIteration === null) return firstRunTimeoutMs(input.kind);
  const { factor, floorMs, ceilingMs } = DERIVED_TIMEOUT;
  return Math.min(ceilingMs, Math.max(floorMs, Math.ceil(factor * input.plainMsPerIteration * (input.testCount ?? 1))));
}

/** A run that ended by itself: its wall time measures the program (a cut or crashed run says nothing of how long it takes). */
export function endedByItself(outcome: string): boolean {
  return outcome === "ok" || outcome === "exit-error";
}

/**
 * The longest run that ended by itself (ok, or exit-error: tests that failed still ran to
 * the end) per -test.count iteration among `runs` (wall ms / count), or null when none did.
 */
export function longestCompleteMsPerIteration(
  runs: readonly { readonly outcome: string; readonly wallMs: number | null; readonly testCount: number | null }[],
): number | null {
  let longest: number | null = null;
  for (const run of runs)
    if (endedByItself(run.outcome) && run.wallMs !== null)
      longest = Math.max(longest ?? 0, run.wallMs / (run.testCount ?? 1));
  return longest;
}

/**
 * How many times a plain run a run of each strategy is expected to take before one of that
 * strategy has been measured: perturbation adds a Gosched or a 1–20 µs sleep at some
 * synchronisation points (acting on 1 visit in 16 after 1000 visits); the race detector's
 * documented cost is 2–20× execution time (https://go.dev/doc/articles/race_detector), of
 * which suites that mostly wait pay little. Once a run of the strategy has ended by itself,
 * its own time is used instead.
 */
export const EXPECTED_COST_FACTORS: Readonly<Record<Strategy, number>> = { plain: 1, perturb: 1.5, race: 3 };

/** Why a run's deadline is what it is, for what the run is called when it is cut: its deadline, or a main program's budget. */
export type DeadlineCause = "deadline" | "budget";

/** A budgeted run to start: its deadline and what stopping it there means. */
export interface BudgetedRun {
  readonly deadlineMs: number;
  readonly cause: DeadlineCause;
}

export interface BudgetedRunInput {
  readonly kind: ProgramKind;
  readonly strategy: Strategy;
  /** The run's -test.count (null: one iteration). */
  readonly testCount: number | null;
  /** --timeout when given, else null. */
  readonly givenMs: number | null;
  readonly manifestMs: number | undefined;
  /** The longest plain run of the program that ended by itself, per -test.count iteration; null before any. */
  readonly plainMsPerIteration: number | null;
  /** The longest run of this strategy that ended by itself, per iteration; null before any. */
  readonly strategyMsPerIteration: number | null;
  /** What is left of the program's budget (may be ≤ 0). */
  readonly remainingBudgetMs: number;
}

/**
 * The run a hunt may start next (docs/collect.md, "Hunting leaks"), or null when it does not
 * fit what is left of the budget:
 *
 * - until a plain run of the program has ended by itself, a test binary gets its configured
 *   deadline (go test's 10 minutes, --timeout, a manifest's), whatever the budget: a budget
 *   shorter than one plain run still gets one complete plain run. A main program gets what is
 *   left of the budget (at least the floor) when that is shorter: a daemon never exits, and
 *   runs for the budget, not the timeout (cause "budget");
 * - afterwards a run is expected to take its strategy's measured time (else the plain run ×
 *   EXPECTED_COST_FACTORS) × its -test.count, and is started only when that fits what is
 *   left. Its deadline is --timeout when given, else DERIVED_TIMEOUT's factor × the expected
 *   time (floor 2 s), never more than what is left or twice the plain run, whichever is
 *   longer: so a program costs at most its budget plus two plain runs, even when its last
 *   run hangs.
 *
 *   budgetedRun({ kind: "test", strategy: "plain", testCount: null, givenMs: null, manifestMs: undefined,
 *     plainMsPerIteration: null, strategyMsPerIteration: null, remainingBudgetMs: 5_000 }) → { deadlineMs: 600000, cause: "deadline" }
 *   budgetedRun({ kind: "test", strategy: "race", testCount: null, givenMs: null, manifestMs: undefined,
 *     plainMsPerIteration: 4_000, strategyMsPerIteration: null, remainingBudgetMs: 10_000 }) → null (12 s expected)
 */
export function budgetedRun(input: BudgetedRunInput): BudgetedRun | null {
  const { floorMs, factor } = DERIVED_TIMEOUT;
  const remaining = Math.floor(input.remainingBudgetMs);
  const configured = configuredTimeoutMs({
    givenMs: input.givenMs,
    manifestMs: input.manifestMs,
    kind: input.kind,
    plainMsPerIteration: input.plainMsPerIteration,
    testCount: input.testCount,
  });
  if (input.plainMsPerIteration === null) {
    if (input.kind === "test") return { deadlineMs: configured, cause: "deadline" };
    // A main program that has never exited runs for what is left of its budget (a daemon
    // would never exit), unless --timeout or its manifest cut it sooner.
    const budget = Math.max(remaining, floorMs);
    const asked = input.givenMs === null ? input.manifestMs : runTimeoutMs(input.givenMs, input.manifestMs);
    return asked !== undefined && asked <= budget
      ? { deadlineMs: asked, cause: "deadline" }
      : { deadlineMs: budget, cause: "budget" };
  }
  const count = input.testCount ?? 1;
  const expected =
    (input.strategyMsPerIteration ?? input.plainMsPerIteration * EXPECTED_COST_FACTORS[input.strategy]) * count;
  if (expected > remaining) return null;
  if (input.givenMs !== null) return { deadlineMs: configured, cause: "deadline" };
  const cap = Math.max(remaining, Math.ceil(2 * input.plainMsPerIteration * count));
  const derived = Math.max(floorMs, Math.ceil(factor * expected));
  return { deadlineMs: runTimeoutMs(Math.min(derived, cap), input.manifestMs), cause: "deadline" };
}
