// `schedlab leaks`: goroutines that block forever, from the ingested runs, printed as text,
// JSON, SARIF, JUnit or GitHub annotations, held against a baseline, gated for CI; --score
// rates them and the peer detectors against manifest labels; --compare shows, per goroutine,
// which detectors report it, without labels.

import type { Command } from "commander";
import { parseChoice, parseNumberOption } from "./options.js";
import { UsageError } from "../errors.js";
import { openExistingDatabase } from "../store/index.js";
import {
  analyseLeaks,
  compareLeaks,
  formatComparison,
  parseCompareDetectors,
  formatScore,
  gateFailures,
  leaksOutput,
  LEAKS_FORMATS,
  matchBaseline,
  readBaseline,
  saveBaseline,
  scoreLeaks,
  type Baseline,
  type Gate,
  type LeaksFormat,
} from "../leaks/index.js";

import {
  FLAKY_FOUND_EXIT_CODE,
  gateExitCode,
  LEAK_FOUND_EXIT_CODE,
  RACE_FOUND_EXIT_CODE,
  REPO_ROOT_FLAG,
  repoRootOption,
} from "./ci-options.js";

export { FLAKY_FOUND_EXIT_CODE, LEAK_FOUND_EXIT_CODE, RACE_FOUND_EXIT_CODE };

interface LeaksFlags {
  program?: string;
  db: string;
  failOnLeak?: boolean;
  failOnOutlived?: boolean;
  failOnBackground?: boolean;
  failOnPotential?: boolean;
  failOnRace?: boolean;
  failOnFlaky?: boolean;
  failOnFailing?: boolean;
  json?: boolean;
  format?: string;
  repoRoot?: string;
  baseline?: string;
  saveBaseline?: string;
  score?: boolean;
  compare?: string;
  cutFraction: string;
}

/** --format, with --json as its alias for json; both given must agree. */
function formatOf(flags: LeaksFlags): LeaksFormat {
  const format =
    flags.format === undefined
      ? flags.json === true
        ? "json"
        : "text"
      : parseChoice("--format", flags.format, LEAKS_FORMATS);
  if (flags.json === true && format !== "json")
    throw new UsageError(`--json asks for --format json, but --format ${format} was given`, "Pass one of them.");
  if (flags.score === true && format !== "text" && format !== "json")
    throw new UsageError(
      `--score prints text or JSON, not ${format}`,
      "Use --score with --format text or --format json.",
    );
  if (flags.compare !== undefined && format !== "text" && format !== "json")
    throw new UsageError(
      `--compare prints text or JSON, not ${format}`,
      "Use --compare with --format text or --format json.",
    );
  return format;
}

export function registerLeaks(program: Command): void {
  program
    .command("leaks")
    .description(
      "Find the bugs that leave goroutines blocked forever across runs, say why each is stuck, predict " +
        "lock-order deadlocks from recorded lock operations, and list the data races -race runs reported; " +
        "store and print them.",
    )
    .option("--program <name>", "only this program")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option(
      "--fail-on-leak",
      `exit with code ${LEAK_FOUND_EXIT_CODE} when a bug blocks goroutines forever (leak or deadlock; not one seen only in runs the deadline cut) (for CI)`,
    )
    .option(
      "--fail-on-outlived",
      `exit with code ${LEAK_FOUND_EXIT_CODE} when a goroutine outlived its test (a ticker or pool never stopped)`,
    )
    .option(
      "--fail-on-background",
      `exit with code ${LEAK_FOUND_EXIT_CODE} when a background goroutine (init, TestMain, package state) is left waiting`,
    )
    .option(
      "--fail-on-potential",
      `exit with code ${LEAK_FOUND_EXIT_CODE} when recorded lock orders make a deadlock possible (an inversion, a recursive read lock), though no run hung`,
    )
    .option("--fail-on-race", `exit with code ${RACE_FOUND_EXIT_CODE} when -race runs reported a data race (for CI)`)
    .option(
      "--fail-on-flaky",
      `exit with code ${FLAKY_FOUND_EXIT_CODE} when a test failed only under a perturbed schedule (for CI)`,
    )
    .option(
      "--fail-on-failing",
      `exit with code ${FLAKY_FOUND_EXIT_CODE} when a test failed in every run that finished, or a panic or fatal error ` +
        "crashed the binary (not one the execution tracer caused)",
    )
    .option("--score", "score findings and peer detectors (dump, goleak, leakprofile) against manifest labels")
    .option(
      "--compare <detectors>",
      "show, per goroutine left blocked, which detectors report it, from the same runs and without " +
        "manifests: schedlab and any of dump, goleak, leakprofile (comma-separated; peers are collected with " +
        "collect --peers)",
    )
    .option(
      "--cut-fraction <x>",
      "in a run the deadline cut, judge only goroutines blocked for at least this share of its traced time",
      "0.5",
    )
    .option(
      "--format <format>",
      `output: ${LEAKS_FORMATS.join(", ")} (SARIF 2.1.0 for code scanning, JUnit XML for test dashboards, GitHub workflow annotations; docs/ci.md)`,
    )
    .option("--json", "machine-readable output (the same as --format json)")
    .option(...REPO_ROOT_FLAG)
    .option(
      "--baseline <file>",
      "accept the bugs, potential deadlocks, races, flaky and failing tests and crashes this baseline lists: shown, but not " +
        "counted by the --fail-on gates; entries that match nothing are listed as stale",
    )
    .option(
      "--save-baseline <file>",
      "write the current bugs, potential deadlocks, races, flaky and failing tests and crashes as a baseline (each with a " +
        "reason to edit; reasons already in the file, or in --baseline, are kept)",
    )
    .action(async (flags: LeaksFlags) => {
      const cutFraction = parseNumberOption("--cut-fraction", flags.cutFraction, 0, 1);
      const format = formatOf(flags);
      if (flags.score === true && (flags.baseline !== undefined || flags.saveBaseline !== undefined))
        throw new UsageError("--score does not take a baseline", "Run --score without --baseline and --save-baseline.");
      if (
        flags.compare !== undefined &&
        (flags.score === true || flags.baseline !== undefined || flags.saveBaseline !== undefined)
      )
        throw new UsageError("--compare goes alone", "Run --compare without --score, --baseline and --save-baseline.");
      const compared = flags.compare === undefined ? null : parseCompareDetectors(flags.compare);
      const repoRoot =
        format === "sarif" || format === "junit" || format === "github" ? repoRootOption(flags.repoRoot) : "";
      const baseline: Baseline | null = flags.baseline === undefined ? null : readBaseline(flags.baseline);
      const db = openExistingDatabase(flags.db);
      try {
        const options = { program: flags.program, cutFraction };
        if (compared !== null) {
          const comparison = await compareLeaks(db, compared, options);
          process.stdout.write(
            format === "json" ? `${JSON.stringify(comparison)}\n` : `${formatComparison(comparison)}\n`,
          );
          return;
        }
        if (flags.score === true) {
          const report = await scoreLeaks(db, options);
          process.stdout.write(format === "json" ? `${JSON.stringify(report)}\n` : `${formatScore(report)}\n`);
          return;
        }
        const analysis = await analyseLeaks(db, options);
        const scope = { program: flags.program };
        const match =
          baseline === null || flags.baseline === undefined
            ? null
            : matchBaseline(analysis, baseline, flags.baseline, scope);
        process.stdout.write(leaksOutput(db, analysis, { format, repoRoot, baseline: match }));
        if (flags.saveBaseline !== undefined) {
          const saved = saveBaseline(flags.saveBaseline, analysis, baseline, scope);
          process.stderr.write(
            `schedlab: wrote ${saved.entries.length} baseline entr${saved.entries.length === 1 ? "y" : "ies"} to ` +
              `${flags.saveBaseline}; give each a reason, then commit it and pass --baseline ` +
              `${flags.saveBaseline}\n`,
          );
        }
        const gates: Gate[] = [];
        if (flags.failOnLeak === true) gates.push("leak");
        if (flags.failOnOutlived === true) gates.push("outlived");
        if (flags.failOnBackground === true) gates.push("background");
        if (flags.failOnPotential === true) gates.push("potential");
        if (flags.failOnRace === true) gates.push("race");
        if (flags.failOnFlaky === true) gates.push("flaky");
        if (flags.failOnFailing === true) gates.push("failing");
        // The first failing gate in this order sets the exit code: leaks before races before flaky tests.
        // What the baseline accepted is shown but never counted.
        const failed = gateFailures(analysis, gates, match?.accepted);
        const code = gateExitCode(failed);
        if (code !== undefined) process.exitCode = code;
      } finally {
        db.close();
      }
    });
}
