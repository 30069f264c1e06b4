// The builds and runs of one collect, shared by plain (collect.ts) and budgeted (budget.ts)
// collection: each package directory is built once per kind and strategy (split tests share
// the binary; its plain and race builds share their overlay copies), and a run is traced and
// recorded in one step.

import { join } from "node:path";
import type { SchedlabDatabase } from "../store/index.js";
import { buildBatch, buildProgram, type BuildTarget, type OverlayCache } from "./build.js";
import { runFiles } from "./paths.js";
import { recordBuild, recordRun } from "./record.js";
import type { Strategy } from "./strategy.js";
import type { DeadlineCause } from "./timeout.js";
import { tracedRun, type TracedRunResult } from "./traced-run.js";
import { untracedRerun, type UntracedRerun } from "./untraced-rerun.js";
import { needsUntracedRerun, parseFailures } from "./failures.js";
import type { BuildResult, NormalizedCollectOptions, RunConfig, UntracedOutcome } from "./types.js";
import type { ProgramSpec } from "../corpus/index.js";
import type { GoToolchain } from "../go/index.js";

/** A build from the cache: `paid` is true for the one request that made it (it took `wallMs`). */
export interface CachedBuild {
  readonly build: BuildResult;
  readonly wallMs: number;
  readonly paid: boolean;
}

/** One traced run to make and record. */
export interface RunRequest {
  readonly program: ProgramSpec;
  readonly programId: number;
  readonly config: RunConfig;
  readonly index: number;
  readonly binary: string;
  readonly timeoutMs: number;
  /** The perturbation seed (perturb runs), else null. */
  readonly seed: number | null;
  /** What stopping the run at its deadline means (default: its deadline; a main program's budget in a hunt). */
  readonly deadlineCause?: DeadlineCause;
}

export interface Executor {
  /** The build target of `program` with `strategy`, with the collect's peers and lock recording. */
  target(program: ProgramSpec, strategy: Strategy): BuildTarget;
  /** The build of `target`: made alone on the first request, shared by the later ones. */
  build(target: BuildTarget): Promise<CachedBuild>;
  /** Builds `targets` (a batch of buildBatches) with one go command; later requests share the results. */
  buildTogether(targets: readonly BuildTarget[], name: string): Promise<BuildResult[]>;
  /** Records the build of one configuration of a program. */
  recordBuild(program: ProgramSpec, programId: number, config: RunConfig, build: BuildResult): void;
  /** Records a run that could not happen because its build failed (no trace, the compiler's tail). */
  recordBuildError(programId: number, config: RunConfig, index: number, build: BuildResult): void;
  /** Traces one run and records it; null when aborted (nothing recorded, the next collect redoes it). */
  run(request: RunRequest): Promise<{ readonly runId: number; readonly result: TracedRunResult } | null>;
}

/**
 * Runs work for one key at a time, in the order asked, while work for other keys goes on:
 * `turns()(key, work)` starts `work` once every earlier work of `key` has settled.
 */
export function turns(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const last = new Map<string, Promise<unknown>>();
  return (key, work) => {
    const previous = last.get(key) ?? Promise.resolve();
    const mine = previous.then(work, work);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    last.set(key, settled);
    void settled.then(() => {
      if (last.get(key) === settled) last.delete(key);
    });
    return mine;
  };
}

/**
 * The untraced reruns of one collect: a traced run whose output shows a fatal crash (a fatal
 * runtime error or signal; needsUntracedRerun) is rerun once without the tracer, at most once
 * per program and crashing test; a later run with the same crash gets that rerun's outcome.
 * `after(program, traced, rerun)` gives the outcome for the traced run, or null when it needs
 * none (or the rerun was aborted).
 */
export function untracedReruns(): {
  after(
    program: string,
    traced: Pick<TracedRunResult, "outputDigest" | "stderrTail">,
    rerun: () => Promise<UntracedRerun | null>,
  ): Promise<UntracedOutcome | null>;
} {
  const made = new Map<string, Promise<UntracedRerun | null>>();
  return {
    async after(program, traced, rerun) {
      const failures = parseFailures(traced.outputDigest ?? traced.stderrTail);
      if (!needsUntracedRerun(failures)) return null;
      const crash = failures.find((f) => f.kind === "fatal" && !f.tracerInduced)!;
      const key = `${program}\0${crash.test ?? ""}`;
      let pending = made.get(key);
      if (pending === undefined) {
        pending = rerun();
        made.set(key, pending);
      }
      return (await pending)?.untraced ?? null;
    },
  };
}

/** The cache key of a build: programs of one package directory and kind share a binary per strategy. */
function buildKey(target: BuildTarget): string {
  return `${target.kind}\0${target.dir}\0${target.strategy ?? "plain"}`;
}

/**
 * The executor of one collect. `recordLocks`: every build records lock operations (a hunt's);
 * `scratch` is the collect's own directory; aborting `signal` kills builds and runs.
 */
export function collectExecutor(
  db: SchedlabDatabase,
  opts: Pick<NormalizedCollectOptions, "traces" | "graceMs" | "peers" | "leakProfile">,
  recordLocks: boolean,
  go: GoToolchain,
  scratch: string,
  signal: AbortSignal,
): Executor {
  const builds = new Map<string, Promise<{ readonly build: BuildResult; readonly wallMs: number }>>();
  const overlays: OverlayCache = new Map();
  const oneAtATime = turns();
  const rerunsUntraced = untracedReruns();
  const timed = async <T>(start: () => Promise<T>): Promise<{ readonly value: T; readonly wallMs: number }> => {
    const t0 = performance.now();
    const value = await start();
    return { value, wallMs: performance.now() - t0 };
  };
  return {
    target(program, strategy) {
      const { dir, kind, goFiles, testFiles } = program;
      return {
        dir,
        kind,
        goFiles,
        testFiles,
        peers: opts.peers,
        ...(opts.leakProfile ? { leakProfile: true } : {}),
        ...(strategy === "plain" ? {} : { strategy }),
        ...(recordLocks ? { recordLocks } : {}),
      };
    },
    async build(target) {
      const key = buildKey(target);
      const cached = builds.get(key);
      if (cached !== undefined) return { ...(await cached), paid: false };
      const pending = timed(() =>
        buildProgram(target, go, join(scratch, `build-${builds.size}`), signal, overlays),
      ).then(({ value, wallMs }) => ({ build: value, wallMs }));
      builds.set(key, pending);
      return { ...(await pending), paid: true };
    },
    async buildTogether(targets, name) {
      const batch = timed(() => buildBatch(targets, go, join(scratch, name), signal));
      // An aborted batch has results for a prefix only; nothing asks for the others then.
      targets.forEach((target, i) =>
        builds.set(
          buildKey(target),
          batch.then(({ value, wallMs }) => ({ build: value[i]!, wallMs })),
        ),
      );
      return (await batch).value;
    },
    recordBuild(program, programId, config, build) {
      recordBuild(db, {
        programId,
        config: config.key,
        status: build.status,
        output: build.output,
        sourceHash: program.sourceHash,
        goVersion: go.version,
      });
    },
    recordBuildError(programId, config, index, build) {
      recordRun(db, {
        programId,
        config: config.key,
        procs: config.procs,
        index,
        outcome: "build-error",
        exitCode: null,
        wallMs: 0,
        tracePath: null,
        traceSha256: null,
        traceBytes: null,
        dumpPath: null,
        stderrTail: build.output.slice(-16 * 1024),
        goVersion: go.version,
        env: {},
        truncated: false,
        strategy: config.strategy,
      });
    },
    async run({ program, programId, config, index, binary, timeoutMs, seed, deadlineCause }) {
      // go test never runs one package's tests twice at once, and a suite may rely on it (a
      // fixed port, a file it writes beside its source): runs of one directory take turns.
      // A crash's untraced rerun is part of its run's turn.
      const result = await oneAtATime(program.dir, async () => {
        const traced = await tracedRun({
          kind: program.kind,
          dir: program.dir,
          binary,
          testName: program.testName,
          config,
          files: runFiles(opts.traces, program.name, config.key, index),
          timeoutMs,
          graceMs: opts.graceMs,
          go,
          peers: opts.peers,
          leakProfile: opts.leakProfile,
          seed,
          deadlineCause,
          signal,
        });
        if (traced === null) return null;
        const untraced = await rerunsUntraced.after(program.name, traced, () =>
          untracedRerun({
            kind: program.kind,
            dir: program.dir,
            binary,
            testName: program.testName,
            config,
            timeoutMs,
            graceMs: opts.graceMs,
            env: traced.env,
            signal,
          }),
        );
        return untraced === null ? traced : { ...traced, untraced };
      });
      if (result === null) return null;
      const runId = recordRun(db, {
        ...result,
        programId,
        config: config.key,
        procs: config.procs,
        index,
        goVersion: go.version,
        strategy: config.strategy,
        seed,
      });
      return { runId, result };
    },
  };
}
