// `schedlab collect <path...>`: parses options and calls the collect library.

import type { Command } from "commander";
import { parsePositiveInteger } from "./options.js";
import { LOG_PROGRESS_EVERY_MS, logHeartbeat, progressWriter, type ProgressWriter } from "./progress.js";
import {
  clock, collect, DEFAULT_REPLAY_ATTEMPTS, EVERY_BUILD_FAILED_EXIT_CODE, explorationLine, logProgressLine, parseDuration, parseProcsList, parseShardOption, parseStopOn, progressLine, replayRun, tallyFindings,
  type CollectProgress, type ResolvedShard, type CollectResult, type ExplorationSummary, type ReplayResult,
} from "../collect/index.js";
import { UsageError } from "../errors.js";
import { parsePeers } from "../collect/peers.js";
import { openDatabase } from "../store/index.js";
import { ingestRuns, type IngestSummary } from "../trace/index.js";

interface CollectFlags {
  program?: string[];
  runs: string;
  timeout: string;
  procs?: string;
  jobs?: string;
  db: string;
  traces: string;
  force?: boolean;
  splitTests?: boolean;
  testCount?: string;
  count?: string;
  cpu?: string;
  tags?: string[];
  run?: string;
  skip?: string;
  race?: boolean;
  peers?: string;
  testCorpus?: boolean;
  budget?: string;
  exhaustBudget?: boolean;
  lockRecording?: boolean;
  stopOn?: string[];
  shard?: string;
  replay?: string;
  attempts?: string;
  /** Set by the action: whether --timeout was given (a replay otherwise uses the original deadline). */
  timeoutGiven?: boolean;
  ingest: boolean;
  json?: boolean;
  quiet?: boolean;
  progressInterval: string;
}

/** How a log is kept informed: the interval of its status lines, and the clock of the command. */
interface LogProgress {
  readonly everyMs: number;
  readonly started: number;
  readonly quiet: boolean;
}

/** Decodes every recorded run not yet ingested (collect runs this unless --no-ingest); a log gets its counter every few seconds. */
async function ingestPending(dbFile: string, progress: ProgressWriter, log: LogProgress): Promise<IngestSummary> {
  const db = openDatabase(dbFile);
  let last = "starting";
  const heartbeat = logHeartbeat(process.stderr, () => `ingest: ${last}; elapsed ${clock(performance.now() - log.started)}`, { quiet: log.quiet, everyMs: log.everyMs });
  try {
    return await ingestRuns(db, {
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

function integer(flag: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : parsePositiveInteger(flag, text);
}

/** --procs, or its go test spelling --cpu (not both). */
function procsOf(flags: CollectFlags): number[] | undefined {
  if (flags.procs !== undefined && flags.cpu !== undefined) throw new UsageError("--cpu is --procs: give one of them", "Use --procs 1,2,4 or --cpu 1,2,4.");
  const list = flags.procs ?? flags.cpu;
  return list === undefined ? undefined : parseProcsList(list);
}

/** --test-count, or its go test spelling --count (not both). */
function testCountOf(flags: CollectFlags): number | undefined {
  if (flags.testCount !== undefined && flags.count !== undefined) throw new UsageError("--count is --test-count: give one of them", "Use --count N or --test-count N.");
  return flags.count !== undefined ? integer("--count", flags.count) : integer("--test-count", flags.testCount);
}

/** Commander accumulator of the repeatable --program flag. */
function collectNames(name: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), name];
}

/**
 * An explored program: its line, then the classes its runs confirmed (those that did not
 * stop the hunt included), each flaky failure with its test, message, seed and replay.
 */
function explorationLines(e: ExplorationSummary): string {
  const stopper = e.finding;
  const head = explorationLine(e);
  if (e.findings.length === 0) return head;
  const lines = [head, `  confirmed: ${e.findings.map((f) => f.class).join(", ")} (stops on: ${e.stopOn.join(", ")})`];
  for (const f of e.findings) {
    const where = `${f.config}${f.seed === null ? "" : ` seed ${f.seed}`}, run ${f.runId}`;
    if (f.class === "failure") {
      for (const failure of f.check.failures.filter((x) => !x.tracerInduced)) {
        lines.push(`  failure: ${failure.test ?? "(main)"} ${failure.kind === "panic" ? "panicked" : "failed"}: ${failure.message.split("\n")[0]} (${where}) — replay: ${f.replay}`);
      }
    } else if (f !== stopper && !(stopper !== null && f.runId === stopper.runId)) {
      lines.push(`  ${f.class}: ${f.class === "race" ? `${f.check.races} data race report(s)` : `${f.check.blocked.length} goroutine(s) blocked`} (${where}) — replay: ${f.replay}`);
    }
  }
  const tracer = e.findings.flatMap((f) => f.check.failures).find((x) => x.tracerInduced);
  if (tracer !== undefined) lines.push(`  note: ${tracer.test ?? "(main)"}: ${tracer.message.split("\n").at(-1)}`);
  return lines.join("\n");
}

function humanSummary(result: CollectResult): string {
  const lines = result.programs.map((program) => {
    if (program.build === "error") return `${program.name} (${program.kind}): build error\n${indent(program.buildOutput ?? "")}`;
    if (program.exploration !== undefined) return explorationLines(program.exploration);
    const counts = new Map<string, number>();
    for (const run of program.runs) counts.set(run.outcome, (counts.get(run.outcome) ?? 0) + 1);
    const truncated = program.runs.filter((run) => run.truncated === true).length;
    const outcomes = [...counts].map(([outcome, n]) => `${outcome} ${n}`).join(", ");
    return `${program.name} (${program.kind}): ${outcomes}${truncated > 0 ? ` (${truncated} truncated trace${truncated > 1 ? "s" : ""})` : ""}`;
  });
  lines.push(`${result.programs.length} program(s); ${result.executed} run(s) executed, ${result.skipped} already recorded.`);
  return lines.join("\n") + "\n";
}

/** The compiler's first lines: they hold the first error (a batch's tail holds other packages). */
function indent(text: string): string {
  return text.trimEnd().split("\n").slice(0, 20).map((line) => `    ${line}`).join("\n");
}

function replaySummary(r: ReplayResult): string {
  const what = (check: ReplayResult["replay"]["check"]) => {
    if (check.finding === null) return "no finding";
    if (check.finding === "race") return `${check.races} race report(s)`;
    const counts = new Map<string, number>();
    for (const b of check.blocked) counts.set(`${b.reason} at ${b.site ?? "?"}`, (counts.get(`${b.reason} at ${b.site ?? "?"}`) ?? 0) + 1);
    return [...counts].map(([signature, n]) => `${n} blocked in ${signature}`).join("; ");
  };
  return [
    `replayed run ${r.original.runId} of ${r.program} (${r.config}${r.seed === null ? "" : `, seed ${r.seed}`}) ${r.attempts === 1 ? "as run" : `${r.attempts} times, last as run`} ${r.replay.runId}: ${r.replay.outcome}`,
    `  original: ${r.original.outcome}, ${what(r.original.check)}`,
    `  replay:   ${r.replay.outcome}, ${what(r.replay.check)}`,
    `  ${r.reproduced ? "the finding was reproduced" : r.original.check.finding === null ? "the original run had no finding" : `the finding did not show in ${r.attempts === 1 ? "the replay" : `${r.attempts} replays`} (the scheduler is not deterministic: replay again, or give more --attempts)`}`,
  ].join("\n") + "\n";
}

async function replay(flags: CollectFlags, paths: string[]): Promise<void> {
  if (paths.length > 0) throw new UsageError("--replay takes a run id, not paths", "Run `schedlab collect --replay RUN_ID [--db FILE]`.");
  const result = await replayRun({
    runId: parsePositiveInteger("--replay", flags.replay!),
    db: flags.db,
    timeoutMs: flags.timeoutGiven ? parseDuration(flags.timeout) : undefined,
    attempts: flags.attempts === undefined ? undefined : parsePositiveInteger("--attempts", flags.attempts),
    traces: flags.traces,
  });
  if (flags.ingest) await ingestPending(flags.db, progressWriter(process.stderr, { quiet: true }), { everyMs: LOG_PROGRESS_EVERY_MS, started: performance.now(), quiet: true });
  process.stdout.write(flags.json === true ? `${JSON.stringify(result)}\n` : replaySummary(result));
}

/** Where --shard auto found the shard, e.g. "shard 2/4 (slurm: SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_COUNT=4)". */
function shardLine(shard: ResolvedShard): string {
  return `shard ${shard.index}/${shard.count} (${shard.engine}: ${shard.from})`;
}

export function registerCollect(program: Command): void {
  program
    .command("collect")
    .description("Build Go programs and run each one many times under the execution tracer, recording every run.")
    .argument("[path...]", "program directories, trees of programs, Go module roots, or package patterns as go test takes them (./..., ./pkg/..., import paths)")
    .option("--program <name>", "collect only this program, named as collect names it (path relative to the path given); repeatable", collectNames)
    .option("--runs <n>", "traced runs per program and configuration", "5")
    .option("--timeout <duration>", "deadline per run (e.g. 500ms, 10s, 2m)", "10s")
    .option("--procs <list>", "GOMAXPROCS values, comma-separated, one configuration each (default: the number of CPUs)")
    .option("--jobs <n>", "concurrent builds and runs (default: the number of CPUs)")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--traces <dir>", "directory for traces and goroutine dumps", "traces")
    .option("--force", "redo runs already recorded (default: resume)")
    .option("--split-tests", "one program per TestXxx or ExampleXxx function (run with -test.run=^Name$) instead of one per test package")
    .option("--test-count <n>", "repeat the tests inside one traced run (-test.count)")
    .option("--count <n>", "go test -count: the same as --test-count")
    .option("--cpu <list>", "go test -cpu: the same as --procs")
    .option("--tags <list>", "build tags, comma-separated (go test -tags), for discovery and builds; repeatable", collectNames)
    .option("--run <regexp>", "go test -run: collect only the tests and examples it selects, and pass it to test binaries (-test.run)")
    .option("--skip <regexp>", "go test -skip: leave out the tests and examples it matches (-test.skip)")
    .option("--race", "build and run every program with -race (not with --budget, which explores -race itself)")
    .option("--peers <list>", "peer leak detectors run at the end of each run, for `schedlab leaks --score`: goleak, leakprofile (the goroutine dump is always kept)")
    .option("--test-corpus", "collect the paths as test corpora: programs named \"<label>/<path>\", never trained on, selected by --holdout corpus:DIR")
    .option("--budget <duration>", "hunt leaks: per-program time to spend exploring schedules (GOMAXPROCS, -test.count, -race, seeded perturbation); stops at the first confirmed finding (--runs is ignored)")
    .option("--exhaust-budget", "with --budget: spend the whole budget even after a finding is confirmed")
    .option("--no-lock-recording", "with --budget: build without recording lock operations (no lock holders, no potential deadlocks; for measuring its cost)")
    .option("--stop-on <classes>", "with --budget: the findings that end a program's hunt: leak, race, failure or any; repeatable or comma-separated (default: leak); the others are still recorded", collectNames)
    .option("--shard <I/N|auto>", "collect only shard I of N (0 ≤ I < N; a stable partition by program name) for `schedlab merge`; auto (or auto/N): I and N from the engine that launched the process: JOB_COMPLETION_INDEX (Kubernetes Indexed Job) with SCHEDLAB_SHARD_COUNT, SLURM_ARRAY_TASK_ID/_COUNT (Slurm array), or SCHEDLAB_SHARD_INDEX/_COUNT (docs/scale-out.md)")
    .option("--replay <run-id>", "rerun one recorded run with its configuration and seed, and say whether its finding shows again")
    .option("--attempts <n>", `with --replay: runs at most, stopping at the first that shows the finding (default ${DEFAULT_REPLAY_ATTEMPTS})`)
    .option("--no-ingest", "do not decode the traces into the database afterwards (run `schedlab ingest` later)")
    .option("--json", "print the result as JSON on stdout, no progress")
    .option("--quiet", "no progress on stderr (warnings and errors still show)")
    .option("--progress-interval <duration>", "without a terminal (CI logs): a progress line this often", "10s")
    .action(async (paths: string[], flags: CollectFlags, command: Command) => {
      const started = performance.now();
      flags.timeoutGiven = command.getOptionValueSource("timeout") === "cli";
      if (flags.replay !== undefined) return replay(flags, paths);
      if (flags.attempts !== undefined) throw new UsageError("--attempts goes with --replay", "Run `schedlab collect --replay RUN_ID --attempts N`.");
      if (paths.length === 0) throw new UsageError("collect needs at least one path", "Give a program directory, a tree of programs or a Go module root, e.g. `schedlab collect go-programs`.");
      const quiet = flags.json === true || flags.quiet === true;
      const log: LogProgress = { everyMs: parseDuration(flags.progressInterval), started, quiet };
      const shard = flags.shard === undefined ? undefined : parseShardOption(flags.shard, process.env);
      const controller = new AbortController();
      const interrupt = () => controller.abort();
      process.once("SIGINT", interrupt);
      process.once("SIGTERM", interrupt);
      const progress = progressWriter(process.stderr, { quiet });
      if (shard !== undefined && shard.engine !== "flag") progress.write(shardLine(shard));
      // The status a log gets every few seconds: the last snapshot, and with a budget the
      // findings of the programs explored so far.
      let latest: { progress: CollectProgress; at: number } | null = null;
      const explored: ExplorationSummary[] = [];
      const statusLine = (final = false) => {
        const now = performance.now();
        return logProgressLine(latest?.progress ?? null, {
          elapsedMs: now - started,
          sinceSnapshotMs: latest === null ? 0 : now - latest.at,
          ...(flags.budget === undefined ? {} : { findings: tallyFindings(explored) }),
          final,
        });
      };
      const heartbeat = logHeartbeat(process.stderr, () => statusLine(), { quiet, everyMs: log.everyMs });
      try {
        const result = await collect({
          paths,
          programs: flags.program,
          runs: integer("--runs", flags.runs),
          timeoutMs: parseDuration(flags.timeout),
          procs: procsOf(flags),
          jobs: integer("--jobs", flags.jobs),
          db: flags.db,
          traces: flags.traces,
          force: flags.force === true,
          splitTests: flags.splitTests === true,
          testCount: testCountOf(flags),
          tags: flags.tags,
          run: flags.run,
          skip: flags.skip,
          race: flags.race === true,
          peers: flags.peers === undefined ? undefined : parsePeers(flags.peers),
          testCorpus: flags.testCorpus === true,
          budgetMs: flags.budget === undefined ? undefined : parseDuration(flags.budget),
          exhaustBudget: flags.exhaustBudget === true,
          recordLocks: flags.lockRecording === false ? false : undefined,
          stopOn: flags.stopOn === undefined ? undefined : parseStopOn(flags.stopOn),
          shard: shard === undefined ? undefined : { index: shard.index, count: shard.count },
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
        const ingest = flags.ingest ? await ingestPending(flags.db, progress, log) : null;
        if (flags.json === true) {
          const ingestJson = ingest && { runs: ingest.runs.length, ok: ingest.ok, truncated: ingest.truncated, errors: ingest.errors, events: ingest.events };
          process.stdout.write(`${JSON.stringify({ programs: result.programs, ...(ingestJson ? { ingest: ingestJson } : {}) })}\n`);
        } else {
          process.stdout.write(humanSummary(result));
          if (ingest !== null && ingest.runs.length > 0) {
            process.stdout.write(`ingested ${ingest.runs.length} run(s): ${ingest.ok} ok, ${ingest.truncated} truncated, ${ingest.errors} error(s); ${ingest.events} events.\n`);
          }
        }
        const failed = result.programs.filter((p) => p.build === "error");
        if (failed.length > 0) {
          const names = failed.slice(0, 5).map((p) => p.name).join(", ") + (failed.length > 5 ? `, … (${failed.length - 5} more)` : "");
          process.stderr.write(`schedlab: ${failed.length} of ${result.programs.length} program(s) failed to build: ${names}; their runs are recorded as build-error${flags.json === true ? "" : " (compiler output above)"}.\n`);
        }
        if (failed.length > 0 && failed.length === result.programs.length) {
          process.stderr.write(`  Nothing could run: fix the build (\`go vet\` on the packages shows the same errors) or check the toolchain with \`schedlab doctor\`.\n`);
          process.exitCode = EVERY_BUILD_FAILED_EXIT_CODE;
          return;
        }
        if (ingest !== null && ingest.errors > 0) {
          for (const run of ingest.runs.filter((r) => r.status === "error")) process.stderr.write(`schedlab: run ${run.runId}: ${run.message}\n`);
          process.exitCode = 1;
        }
      } catch (error) {
        heartbeat.stop();
        progress.done();
        throw error;
      } finally {
        process.removeListener("SIGINT", interrupt);
        process.removeListener("SIGTERM", interrupt);
      }
    });
}
