// A collect as the CLI runs it, shared by `collect` and `hunt`: Ctrl-C stops it cleanly,
// progress goes to stderr (a live line on a terminal, a status line every few seconds in a
// log, one line per explored program), then the new runs are ingested, and what went wrong
// (builds, ingest) is said once on stderr with the exit code it calls for.

import { LOG_PROGRESS_EVERY_MS, logHeartbeat, progressWriter, type ProgressWriter } from "./progress.js";
import {
  clock,
  collect,
  EVERY_BUILD_FAILED_EXIT_CODE,
  explorationLine,
  logProgressLine,
  progressLine,
  tallyFindings,
  type CollectOptions,
  type CollectProgress,
  type CollectResult,
  type ExplorationSummary,
} from "../collect/index.js";
import { openDatabase } from "../store/index.js";
import { ingestRuns, ingestSummaryOf, type IngestKeep, type IngestSummary } from "../trace/index.js";

/** How a log is kept informed: the interval of its status lines, and the clock of the command. */
export interface LogProgress {
  readonly everyMs: number;
  readonly started: number;
  readonly quiet: boolean;
}

/** A log's defaults for a command that prints no progress (a replay's ingest). */
export function quietLog(): LogProgress {
  return { everyMs: LOG_PROGRESS_EVERY_MS, started: performance.now(), quiet: true };
}

/**
 * Decodes every recorded run not yet ingested (collect runs this unless --no-ingest), keeping
 * what `keep` says (ingest's defaults where absent); a log gets its counter every few seconds.
 */
export async function ingestPending(
  dbFile: string,
  progress: ProgressWriter,
  log: LogProgress,
  keep: IngestKeep = {},
): Promise<IngestSummary> {
  const db = openDatabase(dbFile);
  let last = "starting";
  const heartbeat = logHeartbeat(
    process.stderr,
    () => `ingest: ${last}; elapsed ${clock(performance.now() - log.started)}`,
    { quiet: log.quiet, everyMs: log.everyMs },
  );
  try {
    return await ingestRuns(db, {
      ...keep,
      onProgress: (message, transient) => {
        if (transient === true) last = message;
        progress.write(`ingest ${message}`, transient);
      },
    });
  } finally {
    heartbeat.stop();
    progress.done();
    db.close();
  }
}

export interface CollectRun {
  readonly result: CollectResult;
  /** null with `ingest: false`. */
  readonly ingest: IngestSummary | null;
}

/**
 * Runs collect with the CLI's progress on stderr and, unless `ingest` is false, ingests the
 * new runs as they are recorded and any left from before afterwards; warnings are printed.
 * `announce` lines are printed first (e.g. where --shard auto found its shard). The callbacks
 * and signal of `options` are the CLI's own.
 */
export async function collectAndIngest(
  options: CollectOptions,
  ui: {
    readonly log: LogProgress;
    readonly ingest: boolean;
    readonly keep?: IngestKeep;
    readonly announce?: readonly string[];
  },
): Promise<CollectRun> {
  const { log } = ui;
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  const progress = progressWriter(process.stderr, { quiet: log.quiet });
  for (const line of ui.announce ?? []) progress.write(line);
  // The status a log gets every few seconds: the last snapshot, and with a budget the
  // findings of the programs explored so far.
  let latest: { progress: CollectProgress; at: number } | null = null;
  const explored: ExplorationSummary[] = [];
  const statusLine = (final = false) => {
    const now = performance.now();
    return logProgressLine(latest?.progress ?? null, {
      elapsedMs: now - log.started,
      sinceSnapshotMs: latest === null ? 0 : now - latest.at,
      ...(options.budgetMs === undefined ? {} : { findings: tallyFindings(explored) }),
      final,
    });
  };
  const heartbeat = logHeartbeat(process.stderr, () => statusLine(), { quiet: log.quiet, everyMs: log.everyMs });
  try {
    // Runs are ingested as they are recorded (a hunt's as their checks decode them: one decode
    // each; a plain collect's one at a time beside the runs still executing); what is left
    // (runs recorded by an earlier, interrupted collect) is ingested afterwards.
    const ingesting = ui.ingest ? { ...options, ingest: ui.keep ?? {} } : options;
    const result = await collect({
      ...ingesting,
      signal: controller.signal,
      onProgress: (p) => {
        latest = { progress: p, at: performance.now() };
        if (progress.live) progress.write(progressLine(p), true);
      },
      onExplored: (exploration) => {
        explored.push(exploration);
        progress.write(explorationLine(exploration));
      },
    });
    heartbeat.stop(statusLine(true));
    progress.done();
    for (const warning of result.warnings) process.stderr.write(`schedlab: warning: ${warning}\n`);
    const ingest = ui.ingest
      ? ingestSummaryOf([
          ...result.ingested,
          ...(await ingestPending(options.db ?? "schedlab.db", progress, log, ui.keep)).runs,
        ])
      : null;
    return { result, ingest };
  } catch (error) {
    heartbeat.stop();
    progress.done();
    throw error;
  } finally {
    process.removeListener("SIGINT", interrupt);
    process.removeListener("SIGTERM", interrupt);
  }
}

/**
 * Says on stderr which programs failed to build and which runs' traces could not be read,
 * and returns the exit code that calls for: EVERY_BUILD_FAILED_EXIT_CODE (6) when nothing
 * built, else undefined (an unreadable trace is recorded and reported, never a failure of
 * the command). `compilerOutputShown`: whether the compiler's output was printed already (it
 * is not in JSON).
 */
export function reportCollectProblems(
  { result, ingest }: CollectRun,
  compilerOutputShown: boolean,
): number | undefined {
  const failed = result.programs.filter((p) => p.build === "error");
  if (failed.length > 0) {
    const names =
      failed
        .slice(0, 5)
        .map((p) => p.name)
        .join(", ") + (failed.length > 5 ? `, … (${failed.length - 5} more)` : "");
    process.stderr.write(
      `schedlab: ${failed.length} of ${result.programs.length} program(s) failed to build: ${names}; their ` +
        `runs are recorded as build-error${compilerOutputShown ? " (compiler output above)" : ""}.\n`,
    );
  }
  if (failed.length > 0 && failed.length === result.programs.length) {
    process.stderr.write(
      `  Nothing could run: fix the build (\`go vet\` on the packages shows the same errors) or check the toolchain with \`schedlab doctor\`.\n`,
    );
    return EVERY_BUILD_FAILED_EXIT_CODE;
  }
  // A trace that cannot be read is the run's, not the command's failure (a tracer crash cuts
  // it, a kill truncates it): the run is recorded as such, leaks lists it, and nothing aborts.
  if (ingest !== null && ingest.errors > 0) {
    for (const run of ingest.runs.filter((r) => r.status === "error"))
      process.stderr.write(
        `schedlab: run ${run.runId}: its trace cannot be read (${run.message}); the run is recorded, its goroutines ` +
          "are not judged (leaks lists it under how runs ended).\n",
      );
  }
  return undefined;
}
