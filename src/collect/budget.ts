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

import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { ProgramSpec } from "../corpus/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { buildProgram } from "./build.js";
import { checkRun, failureKey, stopsHunt, storedCheck, withFailureClass } from "./check.js";
import { parseFailures } from "./failures.js";
import { configuredTimeoutMs, scaledTimeoutMs } from "./timeout.js";
import { explorationCycle } from "./explore.js";
import { deleteExploration, loadExploration, nextRunIndexes, recordCheck, saveExploration, type ExplorationRow } from "./exploration-store.js";
import { testSelection } from "./options.js";
import { runFiles } from "./paths.js";
import { perturbSeed } from "./perturb.js";
import { linkedAbort, workQueue } from "./pool.js";
import { deleteRuns, recordBuild, recordRun, upsertProgram } from "./record.js";
import { parseConfigKey, type Strategy } from "./strategy.js";
import type { GoToolchain } from "../go/index.js";
import { tracedRun } from "./traced-run.js";
import type { BuildResult, ExplorationFinding, ExplorationSummary, FindingClass, NormalizedCollectOptions, RunCheck, RunConfig, RunOutcome } from "./types.js";

/** One program's exploration while it is under way. */
interface Exploring {
  readonly program: ProgramSpec;
  readonly id: number;
  readonly cycle: readonly RunConfig[];
  readonly nextIndex: Map<string, number>;
  /** Strategies that cannot be built for this program → why. */
  readonly unavailable: Map<Strategy, string>;
  budgetMs: number;
  /** Wall time of the program's runs and their checks; builds are counted apart (buildMs). */
  spentMs: number;
  buildMs: number;
  runs: number;
  status: ExplorationRow["status"];
  /** The first run confirming a class of stopOn: the hunt is over. */
  finding: ExplorationFinding | null;
  findingRunId: number | null;
  /** The first run confirming each class, in the order confirmed. */
  findings: ExplorationFinding[];
  /** failureKey of every failure (not tracer-induced) of the program's plain runs so far. */
  failedInPlain: Set<string>;
  /** The longest ok plain run so far, per -test.count iteration, for the derived and scaled deadlines. */
  plainOkMsPerIteration: number | null;
  /** Whether a plain run of the program has ended (here or in an earlier collect): until then, without --timeout, one run at a time. */
  plainRunEnded: boolean;
  inFlight: number;
  finished: boolean;
}

export interface BudgetResult {
  readonly executed: number;
  readonly explorations: Map<string, ExplorationSummary>;
  /** Each program's id and the config keys it may have runs in (for the summary). */
  readonly programs: Map<string, { readonly id: number; readonly configs: readonly string[] }>;
}

/** The command that reruns run `runId` with its configuration and seed. */
export function replayCommand(runId: number, db: string): string {
  return `schedlab collect --replay ${runId} --db ${db}`;
}

/** Runs the budgeted exploration of `programs`; the caller owns `db` and `scratch`. */
export async function exploreWithBudget(
  db: SchedlabDatabase,
  programs: readonly ProgramSpec[],
  opts: NormalizedCollectOptions & { readonly budgetMs: number },
  go: GoToolchain,
  scratch: string,
): Promise<BudgetResult> {
  const cores = availableParallelism();
  const explorations = new Map<string, ExplorationSummary>();
  const ids = new Map<string, { id: number; configs: readonly string[] }>();
  const states: Exploring[] = [];
  for (const program of programs) {
    const { id, sourceChanged } = upsertProgram(db, program);
    const cycle = explorationCycle({ kind: program.kind, cores, procs: opts.procsGiven ? opts.procs : null, testCount: opts.testCount }).map((c) => ({ ...c, ...testSelection(opts, program.kind) }));
    ids.set(program.name, { id, configs: [...new Set(cycle.map((c) => c.key))] });
    if (sourceChanged || opts.force) deleteExploration(db, id);
    if (opts.force) for (const key of new Set(cycle.map((c) => c.key))) deleteRuns(db, id, key);
    const row = loadExploration(db, id);
    const history = recordedHistory(db, id, opts.db);
    const stopping = history.findings.find((f) => stopsHunt(f.check.classes, opts.stopOn));
    const state: Exploring = {
      program, id, cycle,
      nextIndex: nextRunIndexes(db, id),
      unavailable: new Map(),
      budgetMs: opts.budgetMs,
      spentMs: row?.spentMs ?? 0,
      buildMs: 0,
      runs: row?.runs ?? 0,
      status: row?.status ?? "exploring",
      finding: null,
      findingRunId: null,
      findings: [],
      failedInPlain: history.failedInPlain,
      plainOkMsPerIteration: history.plainOkMsPerIteration,
      plainRunEnded: history.plainRuns > 0,
      inFlight: 0,
      finished: false,
    };
    // The recorded runs decide, under this collect's stop set: a finding of a class it
    // does not stop on leaves the hunt open.
    for (const f of history.findings) for (const c of f.check.classes) if (!state.findings.some((x) => x.class === c)) state.findings.push({ ...f, class: c });
    if (stopping !== undefined) {
      state.finding = { ...stopping, class: stopping.check.classes.find((c) => opts.stopOn.includes(c))! };
      state.findingRunId = stopping.runId;
    }
    if (state.status !== "build-error") state.status = state.finding !== null ? "confirmed" : "exploring";
    states.push(state);
  }

  const started = performance.now();
  let executed = 0;
  let failures = 0;
  const builds = new Map<string, Promise<{ build: BuildResult; wallMs: number }>>();
  const stop = linkedAbort(opts.signal);
  const signal = stop.signal;
  const queue = workQueue(opts.jobs, signal, stop.abort);

  const wantsMore = (s: Exploring) =>
    !signal.aborted && s.status !== "build-error" && s.spentMs < s.budgetMs && (s.finding === null || opts.exhaustBudget) && nextConfig(s) !== null;
  const active = () => states.filter((s) => !s.finished).length;

  const report = (s: Exploring | null, config: string) => {
    if (opts.onProgress === undefined) return;
    const elapsedMs = performance.now() - started;
    opts.onProgress({
      programsDone: states.filter((x) => x.finished).length,
      programsTotal: states.length,
      runsDone: executed,
      runsTotal: executed,
      failures,
      elapsedMs,
      etaMs: null,
      budget: {
        totalMs: states.length * opts.budgetMs,
        spentMs: states.reduce((sum, x) => sum + (x.finished ? x.budgetMs : Math.min(x.spentMs, x.budgetMs)), 0),
        findings: states.filter((x) => x.finding !== null).length,
        current: s === null ? null : { program: s.program.name, spentMs: s.spentMs, budgetMs: s.budgetMs, config },
      },
    });
  };

  const save = (s: Exploring) =>
    saveExploration(db, s.id, {
      budgetMs: s.budgetMs, spentMs: s.spentMs, runs: s.runs, status: s.status, findingRunId: s.findingRunId,
      unavailable: [...s.unavailable].map(([strategy, why]) => `${strategy}: ${why}`),
    });

  const finish = (s: Exploring) => {
    if (s.finished) return;
    s.finished = true;
    if (s.status === "exploring") s.status = s.finding !== null ? "confirmed" : "exhausted";
    if (s.status === "confirmed" && s.finding === null) s.status = "exhausted";
    save(s);
    const summary = explorationSummary(s, opts.stopOn);
    explorations.set(s.program.name, summary);
    opts.onExplored?.(summary);
    report(null, "");
  };

  /** The next configuration of the cycle whose strategy can be built, advancing the position. */
  function nextConfig(s: Exploring): RunConfig | null {
    for (let tried = 0; tried < s.cycle.length; tried++) {
      const config = s.cycle[(s.runs + tried) % s.cycle.length]!;
      if (!s.unavailable.has(config.strategy)) return config;
    }
    return null;
  }

  const buildOf = (s: Exploring, strategy: Strategy) => {
    const key = `${s.program.kind}\0${s.program.dir}\0${strategy}`;
    let pending = builds.get(key);
    if (pending === undefined) {
      const t0 = performance.now();
      const { dir, kind, goFiles, testFiles } = s.program;
      // Every strategy's build of a hunt records lock operations in its traces (docs/leaks.md).
      pending = buildProgram({ dir, kind, goFiles, testFiles, peers: opts.peers, strategy, recordLocks: opts.recordLocks }, go, join(scratch, `build-${builds.size}`), signal)
        .then((build) => ({ build, wallMs: performance.now() - t0 }));
      builds.set(key, pending);
      // The program that starts a build pays for it.
      return pending.then((b) => ({ ...b, paid: true }));
    }
    return pending.then((b) => ({ ...b, paid: false }));
  };

  const step = async (s: Exploring): Promise<void> => {
    const config = nextConfig(s);
    if (config === null) return;
    s.runs++;
    const { build, wallMs, paid } = await buildOf(s, config.strategy);
    if (signal.aborted) return;
    // Builds are not exploration: a cold -race build alone can take longer than a budget.
    if (paid) s.buildMs += wallMs;
    recordBuild(db, { programId: s.id, config: config.key, status: build.status, output: build.output, sourceHash: s.program.sourceHash, goVersion: go.version });
    if (build.status === "error") {
      s.runs--;
      if (config.strategy === "plain") {
        if (s.status !== "build-error") {
          s.status = "build-error";
          recordRun(db, {
            programId: s.id, config: config.key, procs: config.procs, index: 0, outcome: "build-error",
            exitCode: null, wallMs: 0, tracePath: null, traceSha256: null, traceBytes: null, dumpPath: null,
            stderrTail: build.output.slice(-16 * 1024), goVersion: go.version, env: {}, truncated: false,
          });
          failures++;
        }
      } else if (!s.unavailable.has(config.strategy)) {
        s.unavailable.set(config.strategy, firstLines(build.output, 3));
      }
      save(s);
      return;
    }
    const index = s.nextIndex.get(config.key) ?? 0;
    s.nextIndex.set(config.key, index + 1);
    const seed = config.strategy === "perturb" ? perturbSeed(config.key, index) : null;
    const remainingBudgetMs = s.budgetMs - s.spentMs;
    const configuredMs = configuredTimeoutMs({
      givenMs: opts.timeoutGiven ? opts.timeoutMs : null, manifestMs: s.program.manifest?.timeoutMs,
      plainOkMsPerIteration: s.plainOkMsPerIteration, testCount: config.testCount, remainingBudgetMs,
    });
    const timeoutMs = scaledTimeoutMs({
      strategy: config.strategy, configuredMs, testCount: config.testCount,
      plainOkMsPerIteration: s.plainOkMsPerIteration, remainingBudgetMs,
    });
    const t0 = performance.now();
    const result = await tracedRun({
      kind: s.program.kind, dir: s.program.dir, binary: build.binary!, testName: s.program.testName, config,
      files: runFiles(opts.traces, s.program.name, config.key, index), timeoutMs, graceMs: opts.graceMs, go,
      peers: opts.peers, seed, signal,
    });
    if (result === null) return; // aborted: nothing recorded
    const runId = recordRun(db, {
      ...result, programId: s.id, config: config.key, procs: config.procs, index, goVersion: go.version, strategy: config.strategy, seed,
    });
    executed++;
    if (result.outcome !== "ok") failures++;
    const check = withFailureClass(await checkRun(result, s.program, go), config.strategy, s.failedInPlain);
    if (config.strategy === "plain") {
      learnFromPlainRun(s, result.outcome, result.wallMs, config.testCount, check.failures);
      s.plainRunEnded = true;
    }
    recordCheck(db, runId, timeoutMs, check);
    // The run and its check are this program's time (the bookkeeping too).
    s.spentMs += performance.now() - t0;
    const found = (c: FindingClass): ExplorationFinding =>
      ({ class: c, runId, config: config.key, strategy: config.strategy, seed, atMs: Math.round(s.spentMs), atRun: s.runs, check, replay: replayCommand(runId, opts.db) });
    for (const c of check.classes) if (!s.findings.some((f) => f.class === c)) s.findings.push(found(c));
    if (s.finding === null && stopsHunt(check.classes, opts.stopOn)) {
      s.findingRunId = runId;
      s.finding = found(check.classes.find((c) => opts.stopOn.includes(c))!);
    }
    save(s);
    report(s, config.key);
  };

  const pump = (s: Exploring) => {
    if (s.finished) return;
    // Without --timeout, the program's first plain run sets the deadline of the rest: it goes alone.
    const limit = !opts.timeoutGiven && !s.plainRunEnded ? 1 : Math.max(1, Math.floor(opts.jobs / Math.max(1, active())));
    while (s.inFlight < limit && wantsMore(s)) {
      s.inFlight++;
      queue.push(async () => {
        try {
          await step(s);
        } finally {
          s.inFlight--;
          if (!signal.aborted) {
            pump(s);
            if (s.inFlight === 0 && !wantsMore(s)) finish(s);
          }
        }
      });
    }
    if (s.inFlight === 0 && !wantsMore(s) && !signal.aborted) finish(s);
  };

  for (const s of states) pump(s);
  report(null, "");
  try {
    await queue.drain();
  } finally {
    stop.dispose();
  }
  return { executed, explorations, programs: ids };
}

/** What a plain run teaches the rest of the hunt: the tests that fail anyway, and how long an ok run takes. */
function learnFromPlainRun(
  s: Pick<Exploring, "failedInPlain" | "plainOkMsPerIteration">,
  outcome: RunOutcome,
  wallMs: number | null,
  testCount: number | null,
  failures: RunCheck["failures"],
): void {
  for (const f of failures) if (!f.tracerInduced) s.failedInPlain.add(failureKey(f));
  if (outcome === "ok" && wallMs !== null) s.plainOkMsPerIteration = Math.max(s.plainOkMsPerIteration ?? 0, wallMs / (testCount ?? 1));
}

function explorationSummary(s: Exploring, stopOn: readonly FindingClass[]): ExplorationSummary {
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
    unavailable: [...s.unavailable].map(([strategy, why]) => `${strategy}: ${why}`),
  };
}

/** A finding of an earlier collect, before its class is chosen. */
type RecordedFinding = Omit<ExplorationFinding, "class">;

/**
 * What the program's recorded runs already say, so a resumed hunt goes on where it stopped:
 * the checked runs (not replays) confirming any class, in run order; and from its plain
 * runs (ordinary collects' too), the tests that fail anyway and the longest ok run.
 */
function recordedHistory(db: SchedlabDatabase, programId: number, dbPath: string): { findings: RecordedFinding[]; failedInPlain: Set<string>; plainOkMsPerIteration: number | null; plainRuns: number } {
  const checked = db
    .prepare("SELECT r.id, r.config, r.strategy, r.seed, c.detail FROM runs r JOIN run_checks c ON c.run_id = r.id WHERE r.program_id = ? AND c.replay_of IS NULL ORDER BY r.id")
    .all(programId) as { id: number; config: string; strategy: Strategy; seed: number | null; detail: string }[];
  const findings: RecordedFinding[] = [];
  for (const row of checked) {
    const check = storedCheck(row.detail);
    if (check.classes.length === 0) continue;
    findings.push({ runId: row.id, config: row.config, strategy: row.strategy, seed: row.seed, atMs: null, atRun: null, check, replay: replayCommand(row.id, dbPath) });
  }
  const plain = db
    .prepare("SELECT config, outcome, wall_ms AS wallMs, stderr_tail AS stderrTail FROM runs WHERE program_id = ? AND strategy = 'plain' AND outcome != 'build-error'")
    .all(programId) as { config: string; outcome: RunOutcome; wallMs: number | null; stderrTail: string | null }[];
  const learned = { failedInPlain: new Set<string>(), plainOkMsPerIteration: null as number | null };
  for (const run of plain) learnFromPlainRun(learned, run.outcome, run.wallMs, parseConfigKey(run.config)?.testCount ?? null, parseFailures(run.stderrTail ?? ""));
  return { findings, ...learned, plainRuns: plain.length };
}

function firstLines(text: string, n: number): string {
  return text.trim().split("\n").slice(0, n).join(" ").slice(0, 300);
}
