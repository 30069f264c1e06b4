// collect --replay RUN: reruns one recorded run with the same configuration: the same
// program sources (checked by hash), the same build strategy, GOMAXPROCS, -test.count,
// deadline and perturbation seed. The replay is recorded as the configuration's next run
// (runs.strategy and seed as the original; run_checks.replay_of names the original) and
// checked like a budgeted run, so it says whether the original's finding showed again.
// The Go scheduler is not deterministic, so one replay reproduces a schedule-dependent
// finding often, not always (a seed fixes every perturbation decision, src/gohelper/overlay/perturb.go,
// not the scheduler's): a replay runs up to `attempts` times, stopping at the first that shows it.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { discoverPrograms } from "../corpus/index.js";
import { SchedlabError } from "../errors.js";
import { openDatabase } from "../store/index.js";
import { buildProgram } from "./build.js";
import { checkRun } from "./check.js";
import { nextRunIndexes, recordCheck, recordedCheck, replayableRun } from "./exploration-store.js";
import { normalizeCollectOptions } from "./options.js";
import { runFiles } from "./paths.js";
import { recordRun } from "./record.js";
import { parseConfigKey } from "./strategy.js";
import { goToolchain } from "../go/index.js";
import { tracedRun } from "./traced-run.js";
import type { RunCheck, RunConfig, RunOutcome } from "./types.js";

/** The run to replay is not in the database, or cannot be replayed. */
export class ReplayError extends SchedlabError {}

export interface ReplayOptions {
  readonly runId: number;
  /** Default "schedlab.db". */
  readonly db?: string;
  /** The deadline; default: the original run's (recorded by budgeted collects), else 10 s. */
  readonly timeoutMs?: number;
  /** Runs at most, stopping at the first that shows the original's finding (default 5; 1 when the original had none). */
  readonly attempts?: number;
  /** Where the replay's trace goes when the original has none (default "traces"). */
  readonly traces?: string;
  readonly signal?: AbortSignal;
}

export interface ReplayResult {
  readonly program: string;
  readonly config: string;
  readonly seed: number | null;
  readonly original: { readonly runId: number; readonly outcome: RunOutcome; readonly check: RunCheck };
  /** The run that reproduced the finding, else the last one made. */
  readonly replay: {
    readonly runId: number;
    readonly index: number;
    readonly outcome: RunOutcome;
    readonly trace: string | null;
    readonly check: RunCheck;
  };
  /** Runs made (each recorded as the configuration's next run). */
  readonly attempts: number;
  /** The replay's check shows the original's finding: a race, a goroutine blocked with the same reason at the same site, or the same test failing. */
  readonly reproduced: boolean;
}

/**
 * Whether `replay` shows the finding of `original` (pure): a race again, a goroutine
 * blocked with the same reason at the same site, or the same test failing again (failures
 * the tracer caused are no finding).
 */
export function sameFinding(original: RunCheck, replay: RunCheck): boolean {
  const failed = (check: RunCheck) => new Set(check.failures.filter((f) => !f.tracerInduced).map((f) => f.test ?? ""));
  const originalFailures = failed(original);
  if (originalFailures.size > 0 && [...failed(replay)].some((t) => originalFailures.has(t))) return true;
  if (original.finding === null || replay.finding === null) return false;
  if (original.races > 0 && replay.races > 0) return true;
  const signatures = new Set(original.blocked.map((b) => `${b.reason}\0${b.site ?? ""}`));
  return replay.blocked.some((b) => signatures.has(`${b.reason}\0${b.site ?? ""}`));
}

export const DEFAULT_REPLAY_ATTEMPTS = 5;

export async function replayRun(options: ReplayOptions): Promise<ReplayResult> {
  const opts = normalizeCollectOptions({
    paths: ["."],
    db: options.db,
    traces: options.traces,
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  const db = openDatabase(opts.db);
  const scratch = mkdtempSync(join(tmpdir(), "schedlab-replay-"));
  try {
    const run = replayableRun(db, options.runId);
    if (run === null)
      throw new ReplayError(
        `no run with id ${options.runId} in ${opts.db}`,
        "Run ids are in `schedlab collect --json` output (runs[].id) and in the replay line collect --budget prints for each finding.",
      );
    if (run.outcome === "build-error")
      throw new ReplayError(
        `run ${run.id} of ${run.program} is a build error: there is nothing to replay`,
        "Fix the build and collect again.",
      );
    const parsed = parseConfigKey(run.config);
    if (parsed === null)
      throw new ReplayError(
        `run ${run.id} has a configuration schedlab does not know (${run.config})`,
        "Replay runs recorded by this version of schedlab collect.",
      );
    const go = await goToolchain(run.dir);
    const { programs } = await discoverPrograms([run.dir]);
    const program = programs.find((p) => p.kind === run.kind && p.testName === run.testName && p.dir === run.dir);
    if (program === undefined)
      throw new ReplayError(
        `${run.program} is no longer a Go program at ${run.dir}`,
        "Restore the sources the run was collected from, or collect the program again.",
      );
    if (program.sourceHash !== run.sourceHash) {
      throw new ReplayError(
        `the sources of ${run.program} changed since run ${run.id} was collected`,
        "A replay must run the same code: restore the sources, or collect again and replay a new run.",
      );
    }
    const recorded = recordedCheck(db, run.id);
    if (recorded === null && run.tracePath !== null && !existsSync(run.tracePath))
      throw new ReplayError(
        `run ${run.id}'s trace ${run.tracePath} is gone (collect --drop-traces deletes a run's trace once it is stored), ` +
          "and the replay reads what the run showed from it",
        `Collect ${run.program} again without --drop-traces and replay one of its new runs.`,
      );
    const timeoutMs = options.timeoutMs ?? recorded?.timeoutMs ?? opts.timeoutMs;
    const config: RunConfig = { key: run.config, ...parsed };
    // A run a budgeted hunt checked was built with lock recording (src/collect/budget.ts): its replay is too.
    const recordLocks = recorded !== null;
    const build = await buildProgram(
      {
        dir: program.dir,
        kind: program.kind,
        goFiles: program.goFiles,
        testFiles: program.testFiles,
        strategy: parsed.strategy,
        recordLocks,
        leakProfile: opts.leakProfile,
      },
      go,
      join(scratch, "build"),
      options.signal,
    );
    if (build.status === "error")
      throw new ReplayError(
        `${run.program} no longer builds (${parsed.strategy}):\n${build.output.trim().split("\n").slice(0, 10).join("\n")}`,
        "Fix the build, or replay on the machine and toolchain the run came from.",
      );
    const originalCheck =
      recorded?.check ??
      (await checkRun(
        {
          outcome: run.outcome,
          tracePath: run.tracePath,
          races: 0,
          stderrTail: run.stderrTail ?? undefined,
          outputDigest: run.outputDigest,
          untraced: run.untraced,
        },
        program,
        go,
      ));
    const showsSomething = originalCheck.finding !== null || originalCheck.failures.some((f) => !f.tracerInduced);
    const attempts = showsSomething ? (options.attempts ?? DEFAULT_REPLAY_ATTEMPTS) : 1;
    if (!Number.isInteger(attempts) || attempts < 1)
      throw new ReplayError(`attempts must be a positive integer, not ${attempts}`, "Give --attempts 1 or more.");
    let made = 0;
    let replay: ReplayResult["replay"] | null = null;
    while (made < attempts && (replay === null || !sameFinding(originalCheck, replay.check))) {
      const index = nextRunIndexes(db, run.programId).get(run.config) ?? 0;
      const files =
        run.tracePath === null
          ? runFiles(opts.traces, run.program, run.config, index)
          : filesBeside(run.tracePath, index);
      const result = await tracedRun({
        kind: program.kind,
        dir: program.dir,
        binary: build.binary!,
        testName: program.testName,
        config,
        files,
        timeoutMs,
        graceMs: opts.graceMs,
        go,
        seed: run.seed,
        leakProfile: opts.leakProfile,
        signal: options.signal,
      });
      if (result === null) throw new ReplayError("the replay was interrupted", "Run the replay again.");
      const replayId = recordRun(db, {
        ...result,
        programId: run.programId,
        config: run.config,
        procs: run.procs,
        index,
        goVersion: go.version,
        strategy: run.strategy,
        seed: run.seed,
      });
      const check = await checkRun(result, program, go);
      recordCheck(db, replayId, timeoutMs, check, run.id);
      replay = { runId: replayId, index, outcome: result.outcome, trace: result.tracePath, check };
      made++;
    }
    return {
      program: run.program,
      config: run.config,
      seed: run.seed,
      original: { runId: run.id, outcome: run.outcome, check: originalCheck },
      replay: replay!,
      attempts: made,
      reproduced: sameFinding(originalCheck, replay!.check),
    };
  } finally {
    db.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Run files of index `index` in the directory of an earlier run's trace. */
function filesBeside(tracePath: string, index: number) {
  const dir = dirname(tracePath);
  return { dir, trace: join(dir, `run-${index}.trace`), dump: join(dir, `run-${index}.dump`) };
}
