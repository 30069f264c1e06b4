// The collect entry point: discover programs, plan the runs still missing, build each
// package once, run every (program, config, index) through the worker pool, record
// each run as it finishes, and summarise what the database now holds. Without --timeout,
// a program's first run goes alone (with go test's own deadline for a test binary) and the
// others take their deadline from it.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import {
  discoverPrograms,
  discoveryRoots,
  excludedByModule,
  readCorpusFile,
  resolveSources,
  selectProgramsByName,
  type ProgramSpec,
  type ResolvedSources,
} from "../corpus/index.js";
import { inTransaction, openDatabase, type SchedlabDatabase } from "../store/index.js";
import { leakProfileUnavailable } from "./agent.js";
import { buildBatches, type BuildTarget } from "./build.js";
import { recordedCorporaAt, resolveCorpora, saveCorpora } from "./corpora.js";
import { exploreWithBudget } from "./budget.js";
import { CollectInterruptedError } from "./errors.js";
import { goflagsWithTags, normalizeCollectOptions, runConfigs, tagsOfGoflags } from "./options.js";
import { collectExecutor } from "./executor.js";
import { linkedAbort, workQueue, type Task } from "./pool.js";
import { selectShard } from "./shard.js";
import { configuredTimeoutMs, endedByItself, longestCompleteMsPerIteration, runTimeoutMs } from "./timeout.js";
import { completedRunIndexes, completeRuns, deleteRuns, recordedBuild, recordedRuns, upsertProgram } from "./record.js";
import { goToolchain, type GoToolchain } from "../go/index.js";
import { runIngester, type IngestKeep, type RunIngestResult } from "../trace/index.js";
import type {
  BuildResult,
  CollectOptions,
  CollectProgress,
  CollectResult,
  NormalizedCollectOptions,
  ProgramSummary,
  RunConfig,
  RunsMode,
} from "./types.js";

interface PendingRun {
  readonly config: RunConfig;
  readonly index: number;
}

/** One program's share of the work of this collect. */
interface ProgramPlan {
  readonly program: ProgramSpec;
  readonly id: number;
  readonly configs: readonly RunConfig[];
  readonly pending: readonly PendingRun[];
  build: BuildResult | null;
  runsLeft: number;
  /**
   * The longest run of the program (of this collect's strategy) that ended by itself, per
   * -test.count iteration: recorded by earlier collects, else measured by its first run here;
   * null until one did. Without --timeout, the deadline of its later runs comes from it.
   */
  completeMsPerIteration: number | null;
}

function planPrograms(
  db: SchedlabDatabase,
  programs: readonly ProgramSpec[],
  options: NormalizedCollectOptions,
  mode: RunsMode,
): ProgramPlan[] {
  return programs.map((program) => {
    const { id } = upsertProgram(db, program);
    const configs = runConfigs(options, program.kind);
    const pending: PendingRun[] = [];
    for (const config of configs) {
      if (options.force) deleteRuns(db, id, config.key);
      const done = options.force ? new Set<number>() : completedRunIndexes(db, id, config.key);
      for (let index = 0; index < mode.runs; index++) if (!done.has(index)) pending.push({ config, index });
    }
    const strategy = configs[0]?.strategy ?? "plain";
    return {
      program,
      id,
      configs,
      pending,
      build: null,
      runsLeft: pending.length,
      completeMsPerIteration: longestCompleteMsPerIteration(completeRuns(db, id, strategy)),
    };
  });
}

/**
 * Collects traces for every program under `options.paths` (or the ones `options.programs`
 * names, under the same names a collect of the whole tree gives them). Resumes by default: runs
 * already recorded (with their trace on disk) are skipped. Rejects with
 * CollectInterruptedError when `options.signal` aborts; finished runs stay recorded.
 */
export async function collect(options: CollectOptions): Promise<CollectResult> {
  const opts = normalizeCollectOptions(options);
  // Modules of the module proxy are fetched into writable copies first; from here on they are directories.
  const sources = await resolveSources(opts.paths, opts.corpusFile === null ? [] : readCorpusFile(opts.corpusFile));
  const paths = sources.paths;
  // The toolchain the go command selects where the collect looks (GOTOOLCHAIN, the go.mod
  // `toolchain` line of the first directory given; the current directory for patterns).
  const toolchain = await goToolchain(paths.find((p) => isAbsolute(p) && existsSync(p)) ?? process.cwd());
  // --tags reach every go command through GOFLAGS (builds of every strategy, peers' go get),
  // and discovery sees the same tags, GOFLAGS' own included.
  const go: GoToolchain =
    opts.tags.length === 0
      ? toolchain
      : { ...toolchain, env: { ...toolchain.env, GOFLAGS: goflagsWithTags(toolchain.env.GOFLAGS ?? "", opts.tags) } };
  // Labels come from what the database already records; it is only created once the
  // programs are known, so a bad --program or path leaves no database behind.
  const tags = tagsOfGoflags(go.env.GOFLAGS ?? "");
  // A package pattern's corpus is its root directory (./... → the current directory); a
  // module's is its copy, labelled module@version.
  const corpora = resolveCorpora(
    recordedCorporaAt(opts.db),
    await discoveryRoots(paths, { tags }),
    opts.testCorpus ? "test" : "train",
    [],
    new Map([...sources.modules].map(([root, module]) => [root, module.label])),
  );
  const discovery = await discoverPrograms(paths, {
    splitTests: opts.splitTests,
    tags,
    // As go build decides: cgo off (CGO_ENABLED=0, or no C compiler) leaves cgo-only packages out, said so.
    cgo: go.env.CGO_ENABLED !== "0",
    ...(opts.run === null ? {} : { run: opts.run }),
    ...(opts.skip === null ? {} : { skip: opts.skip }),
    // A module's programs are named under module@version, whatever the role (so its family is the module path).
    namePrefix: (root) => sources.modules.get(root)?.label ?? (opts.testCorpus ? corpora.get(root)?.label : undefined),
  });
  // A module from the proxy is tested, as `go test ./...` tests it: its test packages run, its
  // commands (main packages, which want arguments, services or a terminal) do not.
  const kept = discovery.programs.filter((program) => {
    const module = sources.modules.get(program.root);
    return module === undefined || (program.kind === "test" && !excludedByModule(module, program.dir));
  });
  const selected = opts.programs === null ? kept : selectProgramsByName(kept, opts.programs);
  const programs = opts.shard === null ? selected : selectShard(selected, opts.shard);
  const warnings = [
    ...sources.skipped,
    ...moduleNotes(sources),
    ...discovery.warnings,
    ...leakProfileWarnings(opts, go),
  ];
  const db = openDatabase(opts.db);
  const scratch = mkdtempSync(join(tmpdir(), "schedlab-build-"));
  try {
    const { mode } = opts;
    if (mode.kind === "budget") {
      saveCorpora(db, corpora.values());
      const budget = await exploreWithBudget(db, programs, opts, mode, go, scratch);
      if (opts.signal?.aborted) throw new CollectInterruptedError(budget.executed);
      return {
        programs: programs.map((program) => {
          const { id, configs } = budget.programs.get(program.name)!;
          const exploration = budget.explorations.get(program.name);
          const summary = summarise(db, { program, id, configs: configs.map((key) => ({ key })), build: null });
          return exploration === undefined ? summary : { ...summary, exploration };
        }),
        executed: budget.executed,
        skipped: 0,
        warnings,
        ingested: budget.ingested,
      };
    }
    // One transaction: a name clash found while planning records neither corpus nor program.
    const plans = inTransaction(db, () => {
      saveCorpora(db, corpora.values());
      return planPrograms(db, programs, opts, mode);
    });
    const { executed, ingested } = await execute(db, plans, opts, mode, go, scratch);
    if (opts.signal?.aborted) throw new CollectInterruptedError(executed);
    const totalWanted = plans.reduce((sum, plan) => sum + plan.configs.length * mode.runs, 0);
    const pendingCount = plans.reduce((sum, plan) => sum + plan.pending.length, 0);
    return {
      programs: plans.map((plan) => summarise(db, plan)),
      executed,
      skipped: totalWanted - pendingCount,
      warnings,
      ingested,
    };
  } finally {
    db.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** What preparing each module's copy changed, so that a dropped replace or a synthesised go.mod is never silent. */
function moduleNotes(sources: ResolvedSources): string[] {
  return [...sources.modules.values()].flatMap((m) => m.notes.map((note) => `${m.module}@${m.version}: ${note}`));
}

/** Said once per collect when the run agent is on but the toolchain has no goroutine leak profile. */
function leakProfileWarnings(opts: NormalizedCollectOptions, go: GoToolchain): string[] {
  const unavailable = opts.leakProfile ? leakProfileUnavailable(go.version) : null;
  return unavailable === null ? [] : [unavailable];
}

/**
 * A plain collect's ingest (opts.ingest): each recorded run is ingested once it is recorded,
 * one at a time, while the next runs execute; `done` waits for the last and gives the results
 * in the order ingested (a failure of the ingest itself, not of a trace, is thrown there).
 */
function ingestAsRecorded(db: SchedlabDatabase, keep: IngestKeep, go: GoToolchain, signal: AbortSignal) {
  const ingest = runIngester(db, { ...keep, goroot: go.goroot });
  const ingested: RunIngestResult[] = [];
  let chain = Promise.resolve();
  let failure: unknown = null;
  return {
    add(runId: number): void {
      chain = chain
        .then(async () => {
          if (signal.aborted || failure !== null) return;
          ingested.push((await ingest(runId)).result);
        })
        .catch((error: unknown) => {
          failure ??= error;
        });
    },
    async done(): Promise<RunIngestResult[]> {
      await chain;
      if (failure !== null) throw failure;
      return ingested;
    },
  };
}

/** Runs the plans through the worker pool; returns the number of runs executed, and those ingested (opts.ingest). */
async function execute(
  db: SchedlabDatabase,
  plans: ProgramPlan[],
  opts: NormalizedCollectOptions,
  mode: RunsMode,
  go: GoToolchain,
  scratch: string,
): Promise<{ readonly executed: number; readonly ingested: readonly RunIngestResult[] }> {
  const started = performance.now();
  const runsTotal = plans.reduce((sum, plan) => sum + plan.pending.length, 0);
  let runsDone = 0;
  let failures = 0;
  let executed = 0;
  let programsDone = plans.filter((plan) => plan.runsLeft === 0).length;
  const report = () => {
    if (opts.onProgress === undefined) return;
    const elapsedMs = performance.now() - started;
    const progress: CollectProgress = {
      programsDone,
      programsTotal: plans.length,
      runsDone,
      runsTotal,
      failures,
      elapsedMs,
      etaMs: runsDone === 0 ? null : (elapsedMs / runsDone) * (runsTotal - runsDone),
    };
    opts.onProgress(progress);
  };
  const finishRun = (plan: ProgramPlan, failed: boolean) => {
    runsDone++;
    if (failed) failures++;
    plan.runsLeft--;
    if (plan.runsLeft === 0) programsDone++;
    report();
  };

  /** Records the build for `plan`, and returns its run tasks (none after a build error). */
  const planRuns = (plan: ProgramPlan, build: BuildResult): Task[] => {
    plan.build = build;
    for (const config of plan.configs) executor.recordBuild(plan.program, plan.id, config, build);
    if (build.status === "error") {
      for (const run of plan.pending) {
        executor.recordBuildError(plan.id, run.config, run.index, build);
        finishRun(plan, true);
      }
      return [];
    }
    const runTask =
      (run: PendingRun): Task =>
      async () => {
        const timeoutMs = configuredTimeoutMs({
          givenMs: opts.timeoutGiven ? opts.timeoutMs : null,
          manifestMs: plan.program.manifest?.timeoutMs,
          kind: plan.program.kind,
          plainMsPerIteration: plan.completeMsPerIteration,
          testCount: run.config.testCount,
        });
        const ran = await executor.run({
          program: plan.program,
          programId: plan.id,
          config: run.config,
          index: run.index,
          binary: build.binary!,
          timeoutMs,
          seed: null,
        });
        if (ran === null) return; // aborted: nothing recorded, the next collect redoes it
        const { result } = ran;
        if (result.tracePath !== null) ingesting?.add(ran.runId);
        if (endedByItself(result.outcome))
          plan.completeMsPerIteration = Math.max(
            plan.completeMsPerIteration ?? 0,
            result.wallMs / (run.config.testCount ?? 1),
          );
        executed++;
        finishRun(plan, result.outcome !== "ok");
      };
    // Without --timeout and nothing to measure by yet, the first run goes alone: the
    // others start when it has ended, with the deadline derived from it.
    const [first, ...rest] = plan.pending;
    if (opts.timeoutGiven || plan.completeMsPerIteration !== null || first === undefined || rest.length === 0)
      return plan.pending.map(runTask);
    return [
      async () => {
        await runTask(first)();
        if (!signal.aborted) queue.pushFront(...rest.map(runTask));
      },
    ];
  };

  // An internal signal: the caller's abort, or a task failing (e.g. the disk is full),
  // stops the queue and kills the running programs.
  const stop = linkedAbort(opts.signal);
  const signal = stop.signal;
  const queue = workQueue(opts.jobs, signal, stop.abort);
  const executor = collectExecutor(db, opts, false, go, scratch, signal);
  const ingesting = opts.ingest === null ? null : ingestAsRecorded(db, opts.ingest, go, signal);
  // Programs built from the same package directory and kind share one binary (split tests).
  const strategy = mode.race ? "race" : "plain";
  const groups = new Map<BuildTarget, ProgramPlan[]>();
  const targets = new Map<string, BuildTarget>();
  for (const plan of plans.filter((p) => p.pending.length > 0)) {
    const key = `${plan.program.kind}\0${plan.program.dir}`;
    const target = targets.get(key) ?? executor.target(plan.program, strategy);
    targets.set(key, target);
    groups.set(target, [...(groups.get(target) ?? []), plan]);
  }
  // Packages of one module are built together, in batches small enough that runs start early.
  // Peer builds carry per-package overlays and go.mod copies: one package per build.
  const batchSize = opts.peers.length > 0 ? 1 : Math.max(1, Math.min(32, Math.ceil(groups.size / opts.jobs)));
  for (const [b, batch] of buildBatches([...groups.keys()], batchSize).entries()) {
    queue.push(async () => {
      const builds = await executor.buildTogether(batch, `batch-${b}`);
      if (signal.aborted) return;
      const runTasks: Task[] = [];
      for (const [t, target] of batch.entries()) {
        for (const plan of groups.get(target)!) runTasks.push(...planRuns(plan, builds[t]));
      }
      queue.pushFront(...runTasks);
    });
  }
  report();
  try {
    await queue.drain();
    return { executed, ingested: (await ingesting?.done()) ?? [] };
  } finally {
    stop.dispose();
  }
}

function summarise(
  db: SchedlabDatabase,
  plan: Pick<ProgramPlan, "program" | "id" | "build"> & { readonly configs: readonly { readonly key: string }[] },
): ProgramSummary {
  const keys = plan.configs.map((config) => config.key);
  const build = plan.build ??
    recordedBuild(
      db,
      plan.id,
      keys.filter((key) => !/-(race|perturb)(-|$)/.test(key)),
    ) ?? { status: "ok" as const, output: "" };
  return {
    name: plan.program.name,
    kind: plan.program.kind,
    build: build.status,
    ...(build.status === "error" ? { buildOutput: build.output } : {}),
    runs: build.status === "error" ? [] : recordedRuns(db, plan.id, keys),
  };
}

export { runTimeoutMs };
