// Types of the collect stage: the options a caller gives, the normalised options the
// inner modules use, and the results of builds and runs (programs are corpus's ProgramSpec).

import type { LeakProfileTaken, RuntimeGoroutine } from "../core/index.js";
import type { ProgramKind } from "../corpus/index.js";
import type { Peer } from "./peers.js";
import type { IngestKeep, RunIngestResult } from "../trace/index.js";
import type { Strategy } from "./strategy.js";

/**
 * Why a run was stopped before it ended by itself (runs.stop_reason): its deadline, the end
 * of a main program's budget (a daemon's lifetime), or a hang the runtime proved.
 */
export const STOP_REASONS = ["deadline", "budget", "hang"] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** How a binary ended when rerun once without the tracer after a traced run crashed (runs.untraced). */
export type UntracedOutcome = "ok" | "failed" | "crashed";

/** The goroutine leak profile of a run, as recorded: the file the run agent wrote, when it was taken, its goroutines. */
export interface RecordedLeakProfile {
  readonly path: string;
  readonly taken: LeakProfileTaken;
  readonly goroutines: readonly RuntimeGoroutine[];
}

/** How a run ended. `build-error` runs have no trace; every other outcome has one. */
export const RUN_OUTCOMES = ["ok", "exit-error", "panic", "timeout", "build-error", "killed"] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/**
 * What a budgeted run can confirm (docs/collect.md, "Stop rule"): a goroutine blocked for
 * good (leak), a data race report (race), a test that fails under exploration but never in
 * plain runs (failure).
 */
export const FINDING_CLASSES = ["leak", "race", "failure"] as const;
export type FindingClass = (typeof FINDING_CLASSES)[number];

/** What every collect takes, whatever its mode. Only `paths` is required. */
export interface CollectCommonOptions {
  /**
   * Program directories, trees, Go module roots, package patterns, or modules of the Go module
   * proxy (`github.com/x/y@v1.2.3`, with "/..." or a package path after the version: docs/collect.md, "Modules").
   */
  readonly paths: readonly string[];
  /**
   * Ingest each run once it is recorded, keeping what it says (ingest's defaults where absent):
   * a hunt's from its check's decode (one decode for both), a plain collect's one run at a time
   * while the next runs execute. Without it the runs are left for ingestRuns.
   */
  readonly ingest?: IngestKeep;
  /** A corpus file of modules pinned by version (TSV or JSON, docs/collect.md): collected beside `paths`; one that cannot be fetched is skipped, said why. */
  readonly corpusFile?: string;
  /**
   * Collect only these programs, named as discovery names them under `paths` (e.g.
   * "kernels/abba/transfer"); every name must exist. Default: every program found.
   */
  readonly programs?: readonly string[];
  /**
   * Deadline per run in milliseconds, and -test.timeout of test binaries. Default: go test's
   * own 10 minutes for a test binary (10 s for a main program; in a hunt, its budget) until
   * one of its plain runs has ended by itself, then derived from that run (configuredTimeoutMs, budgetedRun).
   */
  readonly timeoutMs?: number;
  /** GOMAXPROCS values, one configuration each (default: the number of CPUs); a hunt explores only these when given. */
  readonly procs?: readonly number[];
  /** Concurrent builds and runs (default: the number of CPUs). */
  readonly jobs?: number;
  /** SQLite database (default "schedlab.db"). */
  readonly db?: string;
  /** Directory for traces and dumps (default "traces"). */
  readonly traces?: string;
  /** Redo runs already recorded (default false: resume). */
  readonly force?: boolean;
  /** One program per TestXxx function instead of one per test package. */
  readonly splitTests?: boolean;
  /** Passed to test binaries as -test.count (collect --count or --test-count); a hunt explores only this count when given. */
  readonly testCount?: number;
  /** Build tags (go test -tags), applied to discovery and every build (merged with GOFLAGS' -tags). */
  readonly tags?: readonly string[];
  /** go test -run: the top-level tests and examples to collect, and -test.run of each test run. */
  readonly run?: string;
  /** go test -skip: the tests and examples to leave out, and -test.skip of each test run. */
  readonly skip?: string;
  /** Peer leak detectors to run at the end of each run (docs/leaks.md); builds each program alone. */
  readonly peers?: readonly Peer[];
  /**
   * Build and run with the run agent (default true; docs/collect.md, "The run agent"): the
   * goroutine leak profile at the end of every run (GOEXPERIMENT=goroutineleakprofile on Go
   * 1.26), and a watchdog that proves hangs with it and stops the run early. false builds
   * without the experiment and runs without the agent's environment (collect --no-leak-profile).
   */
  readonly leakProfile?: boolean;
  /**
   * Collect the paths as test corpora: their programs are named "<label>/<path>" (the label is
   * the root's base name unless another root has it) and are never trained on (docs/dataset.md).
   */
  readonly testCorpus?: boolean;
  /** Collect only the programs of this shard: index in [0, count), by a stable hash of the name. */
  readonly shard?: Shard;
  /** Aborting stops the workers, kills child process groups and rejects with CollectInterruptedError. */
  readonly signal?: AbortSignal;
  /** Receives progress after every build and run. */
  readonly onProgress?: (progress: CollectProgress) => void;
  /** Called once per program when its budgeted exploration ends (never without `budgetMs`). */
  readonly onExplored?: (exploration: ExplorationSummary) => void;
}

/** The options only a collect of a fixed number of runs takes (the mode without `budgetMs`). */
export interface RunsModeOptions {
  /** Traced runs per program and configuration (default 5). */
  readonly runs?: number;
  /** Build and run every program with -race (go test -race). */
  readonly race?: boolean;
}

/** The options only a budgeted collect (a hunt) takes. */
export interface BudgetModeOptions {
  /**
   * Per-program budget in milliseconds for exploring schedules (docs/collect.md, "Hunting
   * leaks"): runs go through the exploration order (GOMAXPROCS values, -test.count, -race,
   * seeded perturbation) until a finding is confirmed or the budget is spent; `procs` and
   * `testCount`, when given, narrow the values explored.
   */
  readonly budgetMs: number;
  /** Spend the whole budget even after a finding is confirmed (default false). */
  readonly exhaustBudget?: boolean;
  /**
   * Build every strategy with lock recording (default true), so `leaks` can name lock
   * holders and predict lock-order deadlocks (docs/leaks.md).
   */
  readonly recordLocks?: boolean;
  /**
   * The classes whose first confirmation ends a program's hunt (default ["leak"]). Other
   * classes are still recorded and summarised, and never stop it.
   */
  readonly stopOn?: readonly FindingClass[];
}

/** `T`'s fields, each refused: the fields of the other mode. */
type Without<T> = { readonly [K in keyof T]?: never };

/**
 * Options of `collect()`, as a caller (or the CLI) gives them. The mode is told by `budgetMs`:
 * given, a budgeted hunt (BudgetModeOptions); absent, `runs` runs per program and configuration
 * (RunsModeOptions). A field of the other mode is a type error here, and a UsageError naming
 * its flag at run time (collectModeOf).
 */
export type CollectOptions = CollectCommonOptions & CollectModeOptions;

/** The fields of one mode, those of the other refused. */
export type CollectModeOptions =
  (RunsModeOptions & Without<BudgetModeOptions>) | (BudgetModeOptions & Without<RunsModeOptions>);

/** The mode of a collect after validation and defaulting (collectModeOf). */
export type CollectMode = RunsMode | BudgetMode;

export interface RunsMode {
  readonly kind: "runs";
  readonly runs: number;
  readonly race: boolean;
}

export interface BudgetMode {
  readonly kind: "budget";
  readonly budgetMs: number;
  readonly exhaustBudget: boolean;
  /** Hunts build with lock recording (true unless --no-lock-recording). */
  readonly recordLocks: boolean;
  /** Classes that stop a program's hunt (collect --stop-on); ["leak"] by default, without duplicates. */
  readonly stopOn: readonly FindingClass[];
}

/** One part of a partition of the programs (collect --shard I/N). */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** Options after validation and defaulting; inner modules never re-validate. */
export interface NormalizedCollectOptions {
  readonly paths: readonly string[];
  /** Ingest each run once it is recorded (CollectCommonOptions.ingest), or null. */
  readonly ingest: IngestKeep | null;
  readonly corpusFile: string | null;
  /** The program names selected, or null for every program found. */
  readonly programs: readonly string[] | null;
  readonly timeoutMs: number;
  /** Whether `timeoutMs` was given; if not, each program's later runs derive their deadline from its first (configuredTimeoutMs). */
  readonly timeoutGiven: boolean;
  /** Time between the deadline and SIGTERM, and between SIGTERM and SIGKILL. */
  readonly graceMs: number;
  readonly procs: readonly number[];
  readonly jobs: number;
  readonly db: string;
  readonly traces: string;
  readonly force: boolean;
  readonly splitTests: boolean;
  readonly testCount: number | null;
  /** Build tags given (collect --tags); GOFLAGS' -tags are merged in by collect. */
  readonly tags: readonly string[];
  readonly run: string | null;
  readonly skip: string | null;
  readonly peers: readonly Peer[];
  /** Builds and runs have the run agent (CollectCommonOptions.leakProfile). */
  readonly leakProfile: boolean;
  readonly testCorpus: boolean;
  readonly mode: CollectMode;
  /** Whether `procs` / `testCount` were given (a budget explores its own values otherwise). */
  readonly procsGiven: boolean;
  readonly shard: Shard | null;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((progress: CollectProgress) => void) | undefined;
  readonly onExplored: ((exploration: ExplorationSummary) => void) | undefined;
}

/** One configuration a program is run under. */
export interface RunConfig {
  /** e.g. "procs-2", "procs-2-count-3", "procs-1-race-count-20", "procs-2-perturb" (see configKey). */
  readonly key: string;
  readonly strategy: Strategy;
  readonly procs: number;
  readonly testCount: number | null;
  /** go test -run / -skip of the collect, for test binaries (-test.run / -test.skip); absent when not given. */
  readonly testRun?: string;
  readonly testSkip?: string;
}

export interface BuildResult {
  readonly status: "ok" | "error";
  /** The binary, when status is "ok". */
  readonly binary: string | null;
  /** Compiler output (tail), always present for errors. */
  readonly output: string;
}

/** A recorded run as reported by `collect()` and the --json output. */
export interface RunSummary {
  /** The run's id in the database (runs.id): `collect --replay ID` reruns it. */
  readonly id: number;
  readonly index: number;
  readonly config: string;
  readonly outcome: RunOutcome;
  readonly exitCode: number | null;
  readonly wallMs: number;
  /** The trace file; null only for build errors or a run that died before the trace began. */
  readonly trace: string | null;
  readonly dump?: string;
  /** The trace lost its last generation (a fatal error or kill made it unavoidable). */
  readonly truncated?: boolean;
  /** Present for race and perturb runs only (plain runs are the default). */
  readonly strategy?: Strategy;
  /** The perturbation seed (perturb runs). */
  readonly seed?: number;
  /** Why the run was stopped before it ended by itself (its deadline, a main program's budget, a proven hang); absent when it ended by itself. */
  readonly stopReason?: StopReason;
}

export interface ProgramSummary {
  readonly name: string;
  readonly kind: ProgramKind;
  readonly build: "ok" | "error";
  readonly buildOutput?: string;
  readonly runs: RunSummary[];
  /** With a budget: how the exploration went. */
  readonly exploration?: ExplorationSummary;
}

/** How a program's budgeted exploration ended (collect --budget). */
export interface ExplorationSummary {
  readonly program: string;
  readonly budgetMs: number;
  /** Wall time of this program's runs and their checks, summed (runs of resumed collects included). */
  readonly spentMs: number;
  /** Wall time of the builds this collect made for it (not part of the budget). */
  readonly buildMs: number;
  readonly runs: number;
  /** Of its runs, those stopped at their deadline: they say less than runs that ended (raise --timeout). */
  readonly cutRuns: number;
  /** Of a main program's runs, those that had not exited when its budget ran out (a daemon's lifetime), stopped then. */
  readonly budgetStops: number;
  /** Of its runs, those the runtime proved hung (goroutine 1 can never go on), stopped by the run agent. */
  readonly hungRuns: number;
  /** Its longest plain run that ended by itself, per -test.count iteration (ms); null when none did. A budget shorter than this still got that one run. */
  readonly plainRunMs: number | null;
  /** confirmed: a run confirmed a class of `stopOn`; exhausted: the budget is spent; build-error: nothing could run. */
  readonly status: "confirmed" | "exhausted" | "build-error";
  /** The first run whose check confirmed a class of `stopOn` (the run that ended the hunt), with what it showed. */
  readonly finding: ExplorationFinding | null;
  /** The first run confirming each class, whether it stops the hunt or not, in the order they were confirmed. */
  readonly findings: readonly ExplorationFinding[];
  /** The classes that stop the hunt. */
  readonly stopOn: readonly FindingClass[];
  /** Strategies that could not be built for this program, with the reason (e.g. -race without cgo). */
  readonly unavailable: readonly string[];
}

export interface ExplorationFinding {
  /** The class this entry stands for (a run may confirm several: see check.classes). */
  readonly class: FindingClass;
  readonly runId: number;
  readonly config: string;
  readonly strategy: Strategy;
  readonly seed: number | null;
  /** Milliseconds of budget spent when the run ended (null for a finding of an earlier collect). */
  readonly atMs: number | null;
  /** How many runs of the program had started by then (null likewise). */
  readonly atRun: number | null;
  readonly check: RunCheck;
  /** The command that reruns this configuration and seed. */
  readonly replay: string;
}

/**
 * The cheap check made after each budgeted run (src/collect/check.ts): goroutines the trace
 * shows blocked for good at the end, data-race reports on stderr, and the tests that failed.
 */
export interface RunCheck {
  /**
   * The verdict as run_checks.finding stores it, kept for compatibility: "race" when the
   * classes include race, else "blocked" when they include leak, else null (also for a
   * check whose only class is failure: the column knows only 'blocked' and 'race').
   */
  readonly finding: "blocked" | "race" | null;
  /** Every class the run confirms: race, leak, failure, in that order. */
  readonly classes: readonly FindingClass[];
  readonly blocked: readonly BlockedAtEnd[];
  readonly races: number;
  /** The failures and panics in the run's output (src/collect/failures.ts), confirming or not. */
  readonly failures: readonly TestFailure[];
  /** Why the trace could not be checked, when it could not. */
  readonly problem?: string;
}

/** One failed or panicking test (or main program) in a run's output (src/collect/failures.ts). */
export interface TestFailure {
  /** The test, subtests included ("TestPool/sub"); null when no test is named (a main program's panic). */
  readonly test: string | null;
  /**
   * fail: the test failed; panic: a Go panic; fatal: a fatal runtime error (`fatal error: …`,
   * not the deadlock report, which is a hang) or a fatal signal (`SIGSEGV: …`). A panic or a
   * fatal error kills the binary: both are crashes.
   */
  readonly kind: "fail" | "panic" | "fatal";
  /**
   * The t.Error/t.Fatal lines of a failed test, an Example's got/want; for a crash, its
   * header line, the crashing goroutine's first user frames and, when several tests were
   * running, their names.
   */
  readonly message: string;
  /**
   * Caused by the execution tracer, not by the code: a goroutine leak check that failed only
   * because it saw the tracer's own goroutine, or a crash whose untraced rerun passed.
   */
  readonly tracerInduced: boolean;
}

/** A user goroutine whose last record in the trace is a block with a leak reason. */
export interface BlockedAtEnd {
  readonly goroutine: string;
  readonly reason: string;
  readonly site: string | null;
}

export interface CollectResult {
  readonly programs: ProgramSummary[];
  /** Runs executed by this call (the rest were resumed from the database). */
  readonly executed: number;
  readonly skipped: number;
  /** Problems that did not stop collection: invalid manifests, unreadable packages. */
  readonly warnings: string[];
  /** The runs ingested with their check's decode (BudgetModeOptions.ingest), in the order ingested; empty otherwise. */
  readonly ingested: readonly RunIngestResult[];
}

export interface CollectProgress {
  readonly programsDone: number;
  readonly programsTotal: number;
  readonly runsDone: number;
  readonly runsTotal: number;
  readonly failures: number;
  readonly elapsedMs: number;
  /** Estimated milliseconds left, or null before the first executed run. */
  readonly etaMs: number | null;
  /** With a budget: the budget of all programs, what is spent, and findings so far. */
  readonly budget?: BudgetProgress;
}

export interface BudgetProgress {
  readonly totalMs: number;
  readonly spentMs: number;
  readonly findings: number;
  /** The program the last run belonged to. */
  readonly current: {
    readonly program: string;
    readonly spentMs: number;
    readonly budgetMs: number;
    readonly config: string;
  } | null;
}
