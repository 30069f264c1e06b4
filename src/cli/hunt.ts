// `schedlab hunt <patterns...>`: the one command that gates a Go project in CI. A budgeted
// collect of the packages go test would test with the same selection flags, ingest, then the
// leak analysis — bugs, potential deadlocks, data races, flaky and failing tests, crashes — printed in a CI format,
// held against a baseline, and gated with `leaks`' exit codes (docs/ci.md, "One command for CI");
// --report writes them as a report too.

import type { Command } from "commander";
import { existsSync } from "node:fs";
import {
  budgetFieldsOf,
  collectCommonOptionsOf,
  collectNames,
  collectOption,
  collectOptionsOf,
  type CollectSelectionFlags,
} from "./collect-options.js";
import { collectAndIngest, ingestPending, reportCollectProblems, type LogProgress } from "./collect-run.js";
import { gateExitCode, parseFailOn, REPO_ROOT_FLAG, repoRootOption } from "./ci-options.js";
import { parseChoice } from "./options.js";
import { progressWriter } from "./progress.js";
import {
  EVERY_BUILD_FAILED_EXIT_CODE,
  parseDuration,
  type CollectCommonOptions,
  type CollectResult,
} from "../collect/index.js";
import {
  analyseLeaks,
  gateFailures,
  GATES,
  leaksOutput,
  LEAKS_FORMATS,
  matchBaseline,
  readBaseline,
  saveBaseline,
  type Gate,
  type LeakAnalysis,
} from "../leaks/index.js";
import { openExistingDatabase } from "../store/index.js";
import { ingestSummaryOf } from "../trace/index.js";
import { collectionReportSections, writeReport } from "../report/index.js";
import { resolve } from "node:path";

/** The budget of each program when --budget is not given. */
export const DEFAULT_HUNT_BUDGET = "20s";

/**
 * The gates of a hunt when --fail-on is not given: bugs that block goroutines forever fail it
 * (exit 3), as a failing test fails `go test`; `--fail-on none` only reports.
 */
export const DEFAULT_HUNT_GATES: readonly Gate[] = ["leak"];

interface HuntFlags extends CollectSelectionFlags {
  format: string;
  repoRoot?: string;
  baseline?: string;
  saveBaseline?: string;
  failOn?: string[];
  report?: string;
}

/** A program whose -race build failed, with the compiler's first line. */
interface RaceUnavailable {
  readonly program: string;
  readonly why: string;
}

/** What --race added to the hunt: the runs it made, and the programs whose -race build failed. */
interface RaceRuns {
  readonly executed: number;
  readonly unavailable: readonly RaceUnavailable[];
}

/**
 * --race, as `go test -race` means it: every program runs under the race detector. A hunt
 * explores -race runs among its strategies, but a program whose hunt ended at an early finding
 * may not have reached one: each such program gets one -race run per GOMAXPROCS value now
 * (resumed like any collect).
 */
async function raceRunsWhereMissing(
  common: CollectCommonOptions,
  hunt: CollectResult,
  log: LogProgress,
): Promise<RaceRuns> {
  const built = hunt.programs.filter((p) => p.build === "ok");
  const unavailable: RaceUnavailable[] = built.flatMap((p) =>
    (p.exploration?.unavailable ?? [])
      .filter((u) => u.startsWith("race:"))
      .map((u) => ({ program: p.name, why: u.slice("race:".length).trim().split("\n")[0]! })),
  );
  const missing = built
    .filter((p) => !p.runs.some((r) => r.strategy === "race") && !unavailable.some((u) => u.program === p.name))
    .map((p) => p.name);
  if (missing.length === 0) return { executed: 0, unavailable };
  // A collect of one -race run each; these programs have no -race run to redo (no --force).
  const { result } = await collectAndIngest(
    { ...common, force: false, race: true, runs: 1, programs: missing },
    { log, ingest: false },
  );
  for (const p of result.programs.filter((x) => x.build === "error"))
    unavailable.push({ program: p.name, why: (p.buildOutput ?? "").trim().split("\n")[0] ?? "" });
  return { executed: result.executed, unavailable };
}

/** Programs of the analysis the hunt did not collect: the database held them already. */
function otherPrograms(analysis: LeakAnalysis, hunt: CollectResult): string[] {
  const hunted = new Set(hunt.programs.map((p) => p.name));
  const analysed = [
    ...analysis.programs.map((p) => p.program),
    ...analysis.withoutRuns,
    ...(analysis.buildErrors ?? []).map((b) => b.program),
  ];
  return [...new Set(analysed)].filter((name) => !hunted.has(name)).sort();
}

/** The last line on stderr: what was hunted and how the gates went. */
function verdictLine(
  hunt: CollectResult,
  race: RaceRuns,
  gates: readonly Gate[],
  failed: readonly Gate[],
  code: number | undefined,
): string {
  const recorded = hunt.programs.reduce((sum, p) => sum + p.runs.length, 0) + race.executed;
  const hunted = `hunt: ${hunt.programs.length} program(s), ${recorded} run(s) recorded (${hunt.executed + race.executed} executed now)`;
  const gated =
    gates.length === 0
      ? "no gate (--fail-on none)"
      : failed.length === 0
        ? `gates ${gates.join(", ")} passed`
        : `gates ${gates.join(", ")}: ${failed.join(", ")} failed`;
  return `${hunted}; ${gated}${code === undefined ? "" : ` (exit ${code})`}.`;
}

export function registerHunt(program: Command): void {
  program
    .command("hunt")
    .description(
      "Gate a Go project the way go test runs it: hunt the schedules of the packages it selects for a " +
        "budget (leaks, deadlocks, data races, flaky and failing tests, crashes), print the findings in a CI format, hold them " +
        "against a baseline and fail on the gates asked for (docs/ci.md).",
    )
    .argument(
      "[patterns...]",
      "package patterns as go test takes them (./..., ./pkg/..., import paths), directories as collect takes them, " +
        "or modules of the Go module proxy (github.com/x/y@v1.2.3/...)",
    )
    .addOption(collectOption("corpusFile"))
    .addOption(collectOption("run"))
    .addOption(collectOption("skip"))
    .addOption(collectOption("tags"))
    .addOption(
      collectOption("race", {
        description:
          "as go test -race: every program runs under the race detector (the hunt explores -race runs; a " +
          "program whose hunt ended before one gets one), and a program whose -race build fails is an error",
      }),
    )
    .addOption(
      collectOption("count", {
        description:
          "go test -count: repeat the tests inside one traced run (-test.count); the hunt's repeated runs use it instead of 20",
      }),
    )
    .addOption(
      collectOption("cpu", {
        description:
          "go test -cpu: the GOMAXPROCS values to explore, comma-separated (default: the CPU count, 1, 2 and twice the CPU count)",
      }),
    )
    .addOption(collectOption("timeout"))
    .addOption(collectOption("program"))
    .addOption(collectOption("splitTests"))
    .addOption(
      collectOption("budget", {
        description:
          "per-program time to spend exploring schedules (GOMAXPROCS, -test.count, -race, seeded " +
          "perturbation); a program's hunt stops at its first confirmed finding of a --stop-on class",
        defaultValue: DEFAULT_HUNT_BUDGET,
      }),
    )
    .addOption(collectOption("exhaustBudget"))
    .addOption(collectOption("stopOn"))
    .addOption(collectOption("leakProfile"))
    .addOption(collectOption("db"))
    .addOption(collectOption("traces"))
    .addOption(collectOption("jobs"))
    .addOption(collectOption("force"))
    .option(
      "--format <format>",
      `findings on stdout: ${LEAKS_FORMATS.join(", ")} (as schedlab leaks prints them; docs/ci.md)`,
      "text",
    )
    .option(...REPO_ROOT_FLAG)
    .option(
      "--baseline <file>",
      "accept the bugs, potential deadlocks, races, flaky and failing tests and crashes this baseline lists: shown, " +
        "but not counted by the gates; entries that match nothing are listed as stale",
    )
    .option(
      "--save-baseline <file>",
      "write the findings as a baseline (reasons already in the file, or in --baseline, are kept)",
    )
    .option(
      "--fail-on <gates>",
      `the gates that fail the command: ${GATES.join(", ")}, all, or none to only report; repeatable or ` +
        `comma-separated (exit 3 leak, outlived, background, potential; 4 race; 5 flaky, failing; default: ` +
        `${DEFAULT_HUNT_GATES.join(",")})`,
      collectNames,
    )
    .option(
      "--report <dir>",
      "also write the findings as a report to DIR (index.html, report.md, metrics.json): the bugs first, proven " +
        "first, filterable, each with its pictures, stacks and replay; then the leak, race and flaky tables",
    )
    .addOption(collectOption("quiet"))
    .addOption(collectOption("progressInterval"))
    .action(async (patterns: string[], flags: HuntFlags, command: Command) => {
      const started = performance.now();
      flags.timeoutGiven = command.getOptionValueSource("timeout") === "cli";
      // What the user can get wrong is checked before the hunt starts: usage (exit 2), the baselines (exit 1).
      const format = parseChoice("--format", flags.format, LEAKS_FORMATS);
      const gates = parseFailOn(flags.failOn, DEFAULT_HUNT_GATES);
      const repoRoot = format === "text" || format === "json" ? "" : repoRootOption(flags.repoRoot);
      const baseline = flags.baseline === undefined ? null : readBaseline(flags.baseline);
      // A file --save-baseline would replace must be a baseline (saveBaseline refuses anything else): said now, not after the hunt.
      if (flags.saveBaseline !== undefined && existsSync(flags.saveBaseline)) readBaseline(flags.saveBaseline);
      const log: LogProgress = { everyMs: parseDuration(flags.progressInterval), started, quiet: flags.quiet === true };
      // A budgeted collect explores -race itself: collect's --race (every run with -race) is not passed on.
      const options = collectOptionsOf(patterns, flags, budgetFieldsOf(flags));

      // The hunt's runs are ingested as their checks decode them; the -race runs added after.
      const hunt = await collectAndIngest(options, { log, ingest: true });
      const race: RaceRuns =
        flags.race === true
          ? await raceRunsWhereMissing(collectCommonOptionsOf(patterns, flags), hunt.result, log)
          : { executed: 0, unavailable: [] };
      const raceIngest =
        flags.race === true
          ? (await ingestPending(flags.db, progressWriter(process.stderr, { quiet: log.quiet }), log)).runs
          : [];
      const ingest = ingestSummaryOf([...hunt.ingest!.runs, ...raceIngest]);
      const problem = reportCollectProblems({ result: hunt.result, ingest }, false);
      for (const r of race.unavailable)
        process.stderr.write(`schedlab: --race: ${r.program} does not build with -race: ${r.why}\n`);
      if (race.unavailable.length > 0)
        process.stderr.write(
          "  go test -race needs cgo and a C compiler (CGO_ENABLED=1, gcc or clang on PATH); drop --race to hunt without requiring it.\n",
        );

      const db = openExistingDatabase(flags.db);
      try {
        const analysis = await analyseLeaks(db);
        const match = baseline === null ? null : matchBaseline(analysis, baseline, flags.baseline!);
        process.stdout.write(leaksOutput(db, analysis, { format, repoRoot, baseline: match }));
        if (flags.saveBaseline !== undefined) {
          const saved = saveBaseline(flags.saveBaseline, analysis, baseline);
          process.stderr.write(
            `schedlab: wrote ${saved.entries.length} baseline entr${saved.entries.length === 1 ? "y" : "ies"} to ` +
              `${flags.saveBaseline}; give each a reason, then commit it and pass --baseline ` +
              `${flags.saveBaseline}\n`,
          );
        }
        if (flags.report !== undefined) {
          const written = writeReport(await collectionReportSections(db, { analysis }), flags.report, {
            title: "schedlab hunt",
            generatedAt: new Date().toISOString(),
            source: `${resolve(flags.db)}, hunt ${patterns.join(" ")}`,
          });
          process.stderr.write(`schedlab: wrote the report to ${written.html}\n`);
        }
        const others = otherPrograms(analysis, hunt.result);
        if (others.length > 0) {
          process.stderr.write(
            `schedlab: note: ${flags.db} also holds ${others.length} program(s) this hunt did not select ` +
              `(${others.slice(0, 5).join(", ")}${others.length > 5 ? ", …" : ""}); they are analysed and gated ` +
              `too. Give each selection a database of its own (--db).\n`,
          );
        }
        // What the baseline accepted is shown but never counted. Nothing built: no gate can speak.
        const failed = gateFailures(analysis, gates, match?.accepted);
        const code =
          problem === EVERY_BUILD_FAILED_EXIT_CODE
            ? problem
            : (gateExitCode(failed) ?? problem ?? (race.unavailable.length > 0 ? 1 : undefined));
        if (!log.quiet) process.stderr.write(`${verdictLine(hunt.result, race, gates, failed, code)}\n`);
        if (code !== undefined) process.exitCode = code;
      } finally {
        db.close();
      }
    });
}
