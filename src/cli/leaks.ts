// `schedlab leaks`: goroutines that block forever, from the ingested runs; --score rates
// them and the peer detectors against manifest labels.

import type { Command } from "commander";
import { parseNumberOption } from "./options.js";
import { openExistingDatabase } from "../store/index.js";
import { analyseLeaks, analysisJson, formatFindings, formatScore, gateFailures, scoreLeaks, type Gate } from "../leaks/index.js";

/** Exit code of `--fail-on-leak` when there are findings (distinct from errors 1 and usage 2). */
export const LEAK_FOUND_EXIT_CODE = 3;

/** Exit code of `--fail-on-race` when -race runs reported a data race (and no leak failed the run first). */
export const RACE_FOUND_EXIT_CODE = 4;

/** Exit code of `--fail-on-flaky` when a test failed only under a perturbed schedule. */
export const FLAKY_FOUND_EXIT_CODE = 5;

/** Exit code of `--fail-on-outlived` / `--fail-on-background` (the same family as a leak). */
const EXIT_CODE_OF_GATE: Record<Gate, number> = { leak: LEAK_FOUND_EXIT_CODE, outlived: LEAK_FOUND_EXIT_CODE, background: LEAK_FOUND_EXIT_CODE, race: RACE_FOUND_EXIT_CODE, flaky: FLAKY_FOUND_EXIT_CODE };

interface LeaksFlags {
  program?: string;
  db: string;
  failOnLeak?: boolean;
  failOnOutlived?: boolean;
  failOnBackground?: boolean;
  failOnRace?: boolean;
  failOnFlaky?: boolean;
  json?: boolean;
  score?: boolean;
  cutFraction: string;
}

export function registerLeaks(program: Command): void {
  program
    .command("leaks")
    .description("Find goroutines that block forever across runs (P(GoUnblock) = 0 after their last block), and the data races -race runs reported; store and print them.")
    .option("--program <name>", "only this program")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--fail-on-leak", `exit with code ${LEAK_FOUND_EXIT_CODE} when a goroutine is blocked forever (leak or deadlock; not one seen only in runs the deadline cut) (for CI)`)
    .option("--fail-on-outlived", `exit with code ${LEAK_FOUND_EXIT_CODE} when a goroutine outlived its test (a ticker or pool never stopped)`)
    .option("--fail-on-background", `exit with code ${LEAK_FOUND_EXIT_CODE} when a background goroutine (init, TestMain, package state) is left waiting`)
    .option("--fail-on-race", `exit with code ${RACE_FOUND_EXIT_CODE} when -race runs reported a data race (for CI)`)
    .option("--fail-on-flaky", `exit with code ${FLAKY_FOUND_EXIT_CODE} when a test failed only under a perturbed schedule (for CI)`)
    .option("--score", "score findings and peer detectors (dump, goleak, leakprofile) against manifest labels")
    .option("--cut-fraction <x>", "in a run the deadline cut, judge only goroutines blocked for at least this share of its traced time", "0.5")
    .option("--json", "machine-readable output")
    .action(async (flags: LeaksFlags) => {
      const cutFraction = parseNumberOption("--cut-fraction", flags.cutFraction, 0, 1);
      const db = openExistingDatabase(flags.db);
      try {
        const options = { program: flags.program, cutFraction };
        if (flags.score === true) {
          const report = await scoreLeaks(db, options);
          process.stdout.write(flags.json === true ? `${JSON.stringify(report)}\n` : `${formatScore(report)}\n`);
          return;
        }
        const analysis = await analyseLeaks(db, options);
        process.stdout.write(flags.json === true ? `${JSON.stringify(analysisJson(analysis))}\n` : `${formatFindings(analysis)}\n`);
        const gates: Gate[] = [];
        if (flags.failOnLeak === true) gates.push("leak");
        if (flags.failOnOutlived === true) gates.push("outlived");
        if (flags.failOnBackground === true) gates.push("background");
        if (flags.failOnRace === true) gates.push("race");
        if (flags.failOnFlaky === true) gates.push("flaky");
        // The first failing gate in this order sets the exit code: leaks before races before flaky tests.
        const failed = gateFailures(analysis, gates);
        if (failed.length > 0) process.exitCode = EXIT_CODE_OF_GATE[failed[0]];
      } finally {
        db.close();
      }
    });
}
