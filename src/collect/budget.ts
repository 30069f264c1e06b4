// collect --budget: spends a per-program wall-clock budget on exploring schedules. Each
// program walks its exploration cycle (src/collect/explore.ts) one run at a time, builds
// each strategy's binary when first needed, checks every run cheaply (src/collect/check.ts)
// and stops once a finding of a class in stopOn is confirmed (unless exhaustBudget) or the
// budget is spent; findings of other classes are recorded and never stop it. Without
// --timeout a program's runs take their deadline from its plain runs (its first plain run
// goes alone), and race and perturb runs get deadlines scaled by them (src/collect/timeout.ts).
// Programs share the worker pool; a program runs several runs at once only when there are
// fewer programs left than workers. Every run and check is recorded as it ends, and the
// exploration row after each, so an interrupted budgeted collect resumes where it stopped.
// With opts.ingest each run is ingested as its check decodes it: one decode for both.

import { availableParallelism } from "node:os";
import type { ProgramSpec } from "../corpus/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { runIngester, type IngestedRun, type DecodeTap, type RunIngestResult } from "../trace/index.js";
import { checkRun, withFailureClass, type TraceDecode } from "./check.js";
import {
  confirm,
  explorationRow,
  explorationSummary,
  finishExploration,
  learnFromRun,
  nextConfig,
  plainMsPerIteration,
  resumedExploration,
  wantsMore,
  type Exploring,
} from "./exploration.js";
import {
  checkedRuns,
  deleteExploration,
  exploredRuns,
  loadExploration,
  nextRunIndexes,
  recordCheck,
  saveExploration,
} from "./exploration-store.js";
import { collectExecutor, type Executor } from "./executor.js";
import { explorationCycle } from "./explore.js";
import { testSelection } from "./options.js";
import { perturbSeed } from "./perturb.js";
import { linkedAbort, workQueue, type WorkQueue } from "./pool.js";
import { deleteRuns, upsertProgram } from "./record.js";
import { budgetedRun, type BudgetedRun } from "./timeout.js";
import type { GoToolchain } from "../go/index.js";
import type { BudgetMode, BuildResult, ExplorationSummary, NormalizedCollectOptions, RunConfig } from "./types.js";

export interface BudgetResult {
  readonly executed: number;
  readonly explorations: Map<string, ExplorationSummary>;
  /** Each program's id and the config keys it may have runs in (for the summary). */
  readonly programs: Map<string, { readonly id: number; readonly configs: readonly string[] }>;
  /** The runs ingested with their checks (opts.ingest), in the order ingested. */
  readonly ingested: readonly RunIngestResult[];
}

/** A budgeted collect while it runs: what each program's steps share. */
interface Hunt {
  readonly db: SchedlabDatabase;
  readonly opts: NormalizedCollectOptions;
  readonly mode: BudgetMode;
  readonly go: GoToolchain;
  readonly executor: Executor;
  readonly queue: WorkQueue;
  /** The caller's abort, or a task failing: stops the queue and kills the running programs. */
  readonly signal: AbortSignal;
  readonly states: readonly Exploring[];
  readonly explorations: Map<string, ExplorationSummary>;
  /** Ingests a run with its check's decode (opts.ingest), or null: the check decodes alone. */
  readonly ingest: ((runId: number, tap: DecodeTap) => Promise<IngestedRun>) | null;
  readonly ingested: RunIngestResult[];
  readonly started: number;
  executed: number;
  failures: number;
}

/** Runs the budgeted exploration of `programs`; the caller owns `db` and `scratch`. */
export async function exploreWithBudget(
  db: SchedlabDatabase,
  programs: readonly ProgramSpec[],
  opts: NormalizedCollectOptions,
  mode: BudgetMode,
  go: GoToolchain,
  scratch: string,
): Promise<BudgetResult> {
  const cores = availableParallelism();
  const ids = new Map<string, { id: number; configs: readonly string[] }>();
  const states = programs.map((program) => {
    const { state, configs } = startExploration(db, program, opts, mode, cores);
    ids.set(program.name, { id: state.id, configs });
    return state;
  });
  const stop = linkedAbort(opts.signal);
  const hunt: Hunt = {
    db,
    opts,
    mode,
    go,
    states,
    executor: collectExecutor(db, opts, mode.recordLocks, go, scratch, stop.signal),
    queue: workQueue(opts.jobs, stop.signal, stop.abort),
    signal: stop.signal,
    explorations: new Map(),
    // The check's toolchain decodes for the ingest too: the one that built the binaries.
    ingest: opts.ingest === null ? null : runIngester(db, { ...opts.ingest, goroot: go.goroot }),
    ingested: [],
    started: performance.now(),
    executed: 0,
    failures: 0,
  };
  for (const s of states) pump(hunt, s);
  report(hunt, null, "");
  try {
    await hunt.queue.drain();
  } finally {
    stop.dispose();
  }
  return { executed: hunt.executed, explorations: hunt.explorations, programs: ids, ingested: hunt.ingested };
}

/**
 * A program's exploration as this collect starts it, and the config keys it may have runs in:
 * changed sources or --force start it afresh (--force also drops its runs), else it resumes.
 */
function startExploration(
  db: SchedlabDatabase,
  program: ProgramSpec,
  opts: NormalizedCollectOptions,
  mode: BudgetMode,
  cores: number,
): { readonly state: Exploring; readonly configs: readonly string[] } {
  const { id, sourceChanged } = upsertProgram(db, program);
  const cycle = explorationCycle({
    kind: program.kind,
    cores,
    procs: opts.procsGiven ? opts.procs : null,
    testCount: opts.testCount,
  }).map((c) => ({ ...c, ...testSelection(opts, program.kind) }));
  const configs = [...new Set(cycle.map((c) => c.key))];
  if (sourceChanged || opts.force) deleteExploration(db, id);
  if (opts.force) for (const key of configs) deleteRuns(db, id, key);
  const recorded = { checked: checkedRuns(db, id), runs: exploredRuns(db, id) };
  const state = resumedExploration(
    { program, id, cycle, nextIndex: nextRunIndexes(db, id) },
    loadExploration(db, id),
    recorded,
    mode,
    opts.db,
  );
  return { state, configs };
}

/** Whether `s` wants another run of this collect (none once it is interrupted): one that fits what is left of its budget. */
function more(h: Hunt, s: Exploring): boolean {
  return !h.signal.aborted && wantsMore(s, h.mode, (config) => runPlan(h, s, config) !== null);
}

/** Queues as many runs of `s` as it may have in flight; finishes it when it wants no more. */
function pump(h: Hunt, s: Exploring): void {
  if (s.finished) return;
  // Without --timeout, the program's first plain run sets the deadline of the rest: it goes alone.
  // A program runs several runs at once only when there are fewer programs left than workers.
  const active = h.states.filter((x) => !x.finished).length;
  const limit =
    !h.opts.timeoutGiven && !s.plainRunEnded ? 1 : Math.max(1, Math.floor(h.opts.jobs / Math.max(1, active)));
  while (s.inFlight < limit && more(h, s)) {
    s.inFlight++;
    h.queue.push(async () => {
      try {
        await step(h, s);
      } finally {
        s.inFlight--;
        if (!h.signal.aborted) {
          pump(h, s);
          if (s.inFlight === 0 && !more(h, s)) finish(h, s);
        }
      }
    });
  }
  if (s.inFlight === 0 && !more(h, s) && !h.signal.aborted) finish(h, s);
}

/** One run of `s`: its configuration's build (shared), the traced run, its check, and what they confirm, all recorded. */
async function step(h: Hunt, s: Exploring): Promise<void> {
  const config = nextConfig(s, (c) => runPlan(h, s, c) !== null);
  if (config === null) return;
  s.runs++;
  const { build, wallMs, paid } = await h.executor.build(h.executor.target(s.program, config.strategy));
  if (h.signal.aborted) return;
  // Builds are not exploration: a cold -race build alone can take longer than a budget.
  if (paid) s.buildMs += wallMs;
  h.executor.recordBuild(s.program, s.id, config, build);
  if (build.status === "error") {
    s.runs--;
    buildFailed(h, s, config, build);
    saveExploration(h.db, s.id, explorationRow(s));
    return;
  }
  const index = s.nextIndex.get(config.key) ?? 0;
  s.nextIndex.set(config.key, index + 1);
  const seed = config.strategy === "perturb" ? perturbSeed(config.key, index) : null;
  // Planned when the run starts: another run of the program may have spent the budget since it was chosen.
  const plan = runPlan(h, s, config);
  if (plan === null) {
    s.runs--;
    s.nextIndex.set(config.key, index);
    return;
  }
  const timeoutMs = plan.deadlineMs;
  const t0 = performance.now();
  const ran = await h.executor.run({
    program: s.program,
    programId: s.id,
    config,
    index,
    binary: build.binary!,
    timeoutMs,
    deadlineCause: plan.cause,
    seed,
  });
  if (ran === null) return; // aborted: nothing recorded
  const { runId, result } = ran;
  h.executed++;
  if (result.outcome !== "ok") h.failures++;
  const check = withFailureClass(
    await checkRun(result, s.program, h.go, ingestingDecode(h, runId)),
    config.strategy,
    s.failedInPlain,
  );
  learnFromRun(s, {
    strategy: config.strategy,
    outcome: result.outcome,
    wallMs: result.wallMs,
    testCount: config.testCount,
    stopReason: result.stopReason,
    failures: check.failures,
  });
  if (config.strategy === "plain") s.plainRunEnded = true;
  recordCheck(h.db, runId, timeoutMs, check);
  // The run and its check are this program's time (the bookkeeping too).
  s.spentMs += performance.now() - t0;
  confirm(s, { runId, config, seed, check }, h.mode.stopOn, h.opts.db);
  saveExploration(h.db, s.id, explorationRow(s));
  report(h, s, config.key);
}

/**
 * The check's decode of run `runId` when the hunt ingests: the run's ingest, whose decode the
 * check taps, so its trace is decoded once; undefined otherwise (the check decodes alone).
 */
function ingestingDecode(h: Hunt, runId: number): TraceDecode | undefined {
  const { ingest } = h;
  if (ingest === null) return undefined;
  return async (tap) => {
    const { result, goroutines } = await ingest(runId, tap);
    h.ingested.push(result);
    // Recorded as the run's ingest error; the check says the same as its own decode would.
    if (goroutines === null) throw new Error(result.message);
    return goroutines;
  };
}

/**
 * The deadline of `s`'s next run in `config` and what stopping it there means (--timeout;
 * else go test's deadline until a plain run ended by itself, then derived from it; a main
 * program's budget), or null when the run would not fit what is left of the budget.
 */
function runPlan(h: Hunt, s: Exploring, config: RunConfig): BudgetedRun | null {
  return budgetedRun({
    kind: s.program.kind,
    strategy: config.strategy,
    testCount: config.testCount,
    givenMs: h.opts.timeoutGiven ? h.opts.timeoutMs : null,
    manifestMs: s.program.manifest?.timeoutMs,
    plainMsPerIteration: plainMsPerIteration(s),
    strategyMsPerIteration: s.msPerIteration.get(config.strategy) ?? null,
    remainingBudgetMs: s.budgetMs - s.spentMs,
  });
}

/**
 * A failed build of `config`: the plain one ends the program's hunt (recorded once as a
 * build-error run); another strategy's is noted as unavailable and left out of the cycle.
 */
function buildFailed(h: Hunt, s: Exploring, config: RunConfig, build: BuildResult): void {
  if (config.strategy === "plain") {
    if (s.status === "build-error") return;
    s.status = "build-error";
    h.executor.recordBuildError(s.id, config, 0, build);
    h.failures++;
  } else if (!s.unavailable.has(config.strategy)) {
    s.unavailable.set(config.strategy, firstLines(build.output, 3));
  }
}

/** Ends `s`'s exploration: its final row and summary, announced. */
function finish(h: Hunt, s: Exploring): void {
  if (s.finished) return;
  finishExploration(s);
  saveExploration(h.db, s.id, explorationRow(s));
  const summary = explorationSummary(s, h.mode.stopOn);
  h.explorations.set(s.program.name, summary);
  h.opts.onExplored?.(summary);
  report(h, null, "");
}

/** Progress after a run of `s` in `config` (or a program's end, with null): runs so far, and the budget spent. */
function report(h: Hunt, s: Exploring | null, config: string): void {
  if (h.opts.onProgress === undefined) return;
  const { states, mode } = h;
  h.opts.onProgress({
    programsDone: states.filter((x) => x.finished).length,
    programsTotal: states.length,
    runsDone: h.executed,
    runsTotal: h.executed,
    failures: h.failures,
    elapsedMs: performance.now() - h.started,
    etaMs: null,
    budget: {
      totalMs: states.length * mode.budgetMs,
      spentMs: states.reduce((sum, x) => sum + (x.finished ? x.budgetMs : Math.min(x.spentMs, x.budgetMs)), 0),
      findings: states.filter((x) => x.finding !== null).length,
      current: s === null ? null : { program: s.program.name, spentMs: s.spentMs, budgetMs: s.budgetMs, config },
    },
  });
}

function firstLines(text: string, n: number): string {
  return text.trim().split("\n").slice(0, n).join(" ").slice(0, 300);
}
