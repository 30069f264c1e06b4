// `schedlab collect <path...>`: parses options and calls the collect library.

import type { Command } from "commander";
import { budgetFieldsOf, collectOption, collectOptionsOf, type CollectSelectionFlags } from "./collect-options.js";
import { collectAndIngest, ingestPending, quietLog, reportCollectProblems, type LogProgress } from "./collect-run.js";
import { dropTracesOption, ingestKeepOf, maxStoredRecordsOption } from "./ingest.js";
import { parsePositiveInteger } from "./options.js";
import { progressWriter } from "./progress.js";
import {
  DEFAULT_REPLAY_ATTEMPTS,
  explorationLine,
  parseDuration,
  parseShardOption,
  replayRun,
  parsePeers,
  type ResolvedShard,
  type CollectResult,
  type ExplorationSummary,
  type ReplayResult,
} from "../collect/index.js";
import { UsageError } from "../errors.js";

/** collect's flags: the ones it shares with hunt (collect-options.ts), and its own. */
interface CollectFlags extends CollectSelectionFlags {
  runs: string;
  peers?: string;
  testCorpus?: boolean;
  shard?: string;
  replay?: string;
  attempts?: string;
  ingest: boolean;
  store: string;
  maxStoredRecords?: string;
  dropTraces?: boolean;
  json?: boolean;
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
        lines.push(
          `  failure: ${failure.test ?? "(main)"} ${failure.kind === "panic" ? "panicked" : failure.kind === "fatal" ? "crashed" : "failed"}: ` +
            `${failure.message.split("\n")[0]} (${where}) — replay: ${f.replay}`,
        );
      }
    } else if (f !== stopper && !(stopper !== null && f.runId === stopper.runId)) {
      const what =
        f.class === "race" ? `${f.check.races} data race report(s)` : `${f.check.blocked.length} goroutine(s) blocked`;
      lines.push(`  ${f.class}: ${what} (${where}) — replay: ${f.replay}`);
    }
  }
  const tracer = e.findings.flatMap((f) => f.check.failures).find((x) => x.tracerInduced);
  if (tracer !== undefined) lines.push(`  note: ${tracer.test ?? "(main)"}: ${tracer.message.split("\n").at(-1)}`);
  return lines.join("\n");
}

function humanSummary(result: CollectResult): string {
  const lines = result.programs.map((program) => {
    if (program.build === "error")
      return `${program.name} (${program.kind}): build error\n${indent(program.buildOutput ?? "")}`;
    if (program.exploration !== undefined) return explorationLines(program.exploration);
    const counts = new Map<string, number>();
    for (const run of program.runs) counts.set(run.outcome, (counts.get(run.outcome) ?? 0) + 1);
    const truncated = program.runs.filter((run) => run.truncated === true).length;
    const outcomes = [...counts].map(([outcome, n]) => `${outcome} ${n}`).join(", ");
    return (
      `${program.name} (${program.kind}): ${outcomes}` +
      `${truncated > 0 ? ` (${truncated} truncated trace${truncated > 1 ? "s" : ""})` : ""}${stopNotes(program.runs)}`
    );
  });
  lines.push(
    `${result.programs.length} program(s); ${result.executed} run(s) executed, ${result.skipped} already recorded.`,
  );
  return lines.join("\n") + "\n";
}

/** What the runs stopped before they ended say to the reader: how many, and the flag that gives them room. */
function stopNotes(runs: CollectResult["programs"][number]["runs"]): string {
  const count = (reason: string) => runs.filter((r) => r.stopReason === reason).length;
  const notes = [
    count("deadline") > 0 ? `${count("deadline")} cut at the deadline (raise --timeout)` : "",
    count("budget") > 0 ? `${count("budget")} still going when the budget ran out` : "",
    count("hang") > 0 ? `${count("hang")} proven hung by the runtime and stopped` : "",
  ].filter((n) => n !== "");
  return notes.length === 0 ? "" : `; ${notes.join("; ")}`;
}

/** The compiler's first lines: they hold the first error (a batch's tail holds other packages). */
function indent(text: string): string {
  return text
    .trimEnd()
    .split("\n")
    .slice(0, 20)
    .map((line) => `    ${line}`)
    .join("\n");
}

function replaySummary(r: ReplayResult): string {
  const what = (check: ReplayResult["replay"]["check"]) => {
    if (check.finding === null) return "no finding";
    if (check.finding === "race") return `${check.races} race report(s)`;
    const counts = new Map<string, number>();
    for (const b of check.blocked)
      counts.set(`${b.reason} at ${b.site ?? "?"}`, (counts.get(`${b.reason} at ${b.site ?? "?"}`) ?? 0) + 1);
    return [...counts].map(([signature, n]) => `${n} blocked in ${signature}`).join("; ");
  };
  const verdict = r.reproduced
    ? "the finding was reproduced"
    : r.original.check.finding === null
      ? "the original run had no finding"
      : `the finding did not show in ${r.attempts === 1 ? "the replay" : `${r.attempts} replays`} ` +
        "(the scheduler is not deterministic: replay again, or give more --attempts)";
  return (
    [
      `replayed run ${r.original.runId} of ${r.program} (${r.config}` +
        `${r.seed === null ? "" : `, seed ${r.seed}`}) ` +
        `${r.attempts === 1 ? "as run" : `${r.attempts} times, last as run`} ${r.replay.runId}: ` +
        `${r.replay.outcome}`,
      `  original: ${r.original.outcome}, ${what(r.original.check)}`,
      `  replay:   ${r.replay.outcome}, ${what(r.replay.check)}`,
      `  ${verdict}`,
    ].join("\n") + "\n"
  );
}

/** The flags a replay reads (collect's attribute names); any other given means nothing to it. */
const REPLAY_FLAGS: ReadonlySet<string> = new Set([
  "replay",
  "attempts",
  "db",
  "traces",
  "timeout",
  "ingest",
  "store",
  "maxStoredRecords",
  "json",
  "quiet",
]);

/** Refuses the flags given with --replay that a replay does not read: it reruns a recorded run as it was. */
function refuseOutsideReplay(command: Command): void {
  for (const option of command.options) {
    const name = option.attributeName();
    if (REPLAY_FLAGS.has(name) || command.getOptionValueSource(name) !== "cli") continue;
    const flag = option.long ?? name;
    throw new UsageError(
      `${flag} goes without --replay`,
      `A replay reruns one recorded run with its own program, configuration and seed: drop ${flag}, or drop --replay to collect.`,
    );
  }
}

async function replay(flags: CollectFlags, paths: string[], command: Command): Promise<void> {
  if (paths.length > 0)
    throw new UsageError("--replay takes a run id, not paths", "Run `schedlab collect --replay RUN_ID [--db FILE]`.");
  refuseOutsideReplay(command);
  const result = await replayRun({
    runId: parsePositiveInteger("--replay", flags.replay!),
    db: flags.db,
    timeoutMs: flags.timeoutGiven === true && flags.timeout !== undefined ? parseDuration(flags.timeout) : undefined,
    attempts: flags.attempts === undefined ? undefined : parsePositiveInteger("--attempts", flags.attempts),
    traces: flags.traces,
  });
  if (flags.ingest)
    await ingestPending(flags.db, progressWriter(process.stderr, { quiet: true }), quietLog(), ingestKeepOf(flags));
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
    .argument(
      "[path...]",
      "program directories, trees of programs, Go module roots, package patterns as go test takes them (./..., ./pkg/..., " +
        "import paths), or modules of the Go module proxy (github.com/x/y@v1.2.3/..., …@v1.2.3/pkg)",
    )
    .addOption(collectOption("corpusFile"))
    .addOption(collectOption("program"))
    .option("--runs <n>", "traced runs per program and configuration", "5")
    .addOption(collectOption("timeout"))
    .addOption(collectOption("procs"))
    .addOption(collectOption("jobs"))
    .addOption(collectOption("db"))
    .addOption(collectOption("traces"))
    .addOption(collectOption("force"))
    .addOption(collectOption("splitTests"))
    .addOption(collectOption("testCount"))
    .addOption(collectOption("count"))
    .addOption(collectOption("cpu"))
    .addOption(collectOption("tags"))
    .addOption(collectOption("run"))
    .addOption(collectOption("skip"))
    .addOption(collectOption("race"))
    .option(
      "--peers <list>",
      "peer leak detectors in the same runs, for `schedlab leaks --score`/`--compare`: goleak (checked at the end of " +
        "each run), leakprofile (the run agent's goroutine leak profile, taken for every run anyway; not with " +
        "--no-leak-profile); the goroutine dump is always kept",
    )
    .option(
      "--test-corpus",
      'collect the paths as test corpora: programs named "<label>/<path>", never trained on, selected by --holdout corpus:DIR',
    )
    .addOption(collectOption("budget"))
    .addOption(collectOption("exhaustBudget"))
    .addOption(collectOption("lockRecording"))
    .addOption(collectOption("stopOn"))
    .addOption(collectOption("leakProfile"))
    .option(
      "--shard <I/N|auto>",
      "collect only shard I of N (0 ≤ I < N; a stable partition by program name) for `schedlab merge`; " +
        "auto (or auto/N): I and N from the engine that launched the process: JOB_COMPLETION_INDEX " +
        "(Kubernetes Indexed Job) with SCHEDLAB_SHARD_COUNT, SLURM_ARRAY_TASK_ID/_COUNT (Slurm array), or " +
        "SCHEDLAB_SHARD_INDEX/_COUNT (docs/scale-out.md)",
    )
    .option(
      "--replay <run-id>",
      "rerun one recorded run with its configuration and seed, and say whether its finding shows again",
    )
    .option(
      "--attempts <n>",
      `with --replay: runs at most, stopping at the first that shows the finding (default ${DEFAULT_REPLAY_ATTEMPTS})`,
    )
    .option("--no-ingest", "do not decode the traces into the database afterwards (run `schedlab ingest` later)")
    .option(
      "--store <mode>",
      "what the ingest afterwards keeps of each run: events (every record, what dist, train, eval, events " +
        "and export read) or summary (goroutines and end states: what leaks and --replay need, a few rows " +
        "per run)",
      "events",
    )
    .addOption(maxStoredRecordsOption())
    .addOption(dropTracesOption())
    .option("--json", "print the result as JSON on stdout, no progress")
    .addOption(collectOption("quiet"))
    .addOption(collectOption("progressInterval"))
    .action(async (paths: string[], flags: CollectFlags, command: Command) => {
      const started = performance.now();
      flags.timeoutGiven = command.getOptionValueSource("timeout") === "cli";
      const keep = ingestKeepOf(flags);
      for (const [name, flag, value] of [
        ["store", "--store", flags.store],
        ["maxStoredRecords", "--max-stored-records", flags.maxStoredRecords],
        ["dropTraces", "--drop-traces", ""],
      ])
        if (!flags.ingest && command.getOptionValueSource(name!) === "cli")
          throw new UsageError(
            `${flag} says what the ingest keeps, and --no-ingest skips the ingest`,
            `Drop --no-ingest, or drop ${flag} and give it to \`schedlab ingest ${[flag, value].join(" ").trim()}\` later.`,
          );
      if (flags.replay !== undefined) return replay(flags, paths, command);
      if (flags.attempts !== undefined)
        throw new UsageError("--attempts goes with --replay", "Run `schedlab collect --replay RUN_ID --attempts N`.");
      const quiet = flags.json === true || flags.quiet === true;
      const log: LogProgress = { everyMs: parseDuration(flags.progressInterval), started, quiet };
      const shard = flags.shard === undefined ? undefined : parseShardOption(flags.shard, process.env);
      const collected = await collectAndIngest(
        {
          // --runs (its default is collect's own) and --race only when given: with --budget they are refused.
          ...collectOptionsOf(paths, flags, {
            ...budgetFieldsOf(flags),
            runs:
              command.getOptionValueSource("runs") === "cli" ? parsePositiveInteger("--runs", flags.runs) : undefined,
            race: flags.race,
          }),
          peers: flags.peers === undefined ? undefined : parsePeers(flags.peers),
          testCorpus: flags.testCorpus === true,
          shard: shard === undefined ? undefined : { index: shard.index, count: shard.count },
        },
        {
          log,
          ingest: flags.ingest,
          keep,
          announce: shard !== undefined && shard.engine !== "flag" ? [shardLine(shard)] : [],
        },
      );
      const { result, ingest } = collected;
      if (flags.json === true) {
        const ingestJson = ingest && {
          runs: ingest.runs.length,
          ok: ingest.ok,
          truncated: ingest.truncated,
          errors: ingest.errors,
          events: ingest.events,
          excerpts: ingest.excerpts,
        };
        process.stdout.write(
          `${JSON.stringify({ programs: result.programs, ...(ingestJson ? { ingest: ingestJson } : {}) })}\n`,
        );
      } else {
        process.stdout.write(humanSummary(result));
        if (ingest !== null && ingest.runs.length > 0) {
          process.stdout.write(
            `ingested ${ingest.runs.length} run(s): ${ingest.ok} ok, ${ingest.truncated} truncated, ${ingest.errors} error(s); ${ingest.events} events` +
              (ingest.excerpts === 0
                ? ""
                : `; ${ingest.excerpts} run(s) over --max-stored-records stored as excerpts`) +
              (keep.dropTraces === true
                ? `; the traces of the ${ingest.ok + ingest.truncated} stored were deleted (--drop-traces).\n`
                : ".\n"),
          );
        }
      }
      const code = reportCollectProblems(collected, flags.json !== true);
      if (code !== undefined) process.exitCode = code;
    });
}
