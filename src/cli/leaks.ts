// `schedlab leaks`: goroutines that block forever, from the ingested runs; --score rates
// them and the peer detectors against manifest labels.

import type { Command } from "commander";
import { parseNumberOption } from "./options.js";
import { openExistingDatabase } from "../store/index.js";
import { analyseLeaks, analysisJson, formatFindings, formatScore, scoreLeaks } from "../leaks/index.js";

/** Exit code of `--fail-on-leak` when there are findings (distinct from errors 1 and usage 2). */
export const LEAK_FOUND_EXIT_CODE = 3;

/** Exit code of `--fail-on-race` when -race runs reported a data race (and no leak failed the run first). */
export const RACE_FOUND_EXIT_CODE = 4;

interface LeaksFlags {
  program?: string;
  db: string;
  failOnLeak?: boolean;
  failOnRace?: boolean;
  json?: boolean;
  score?: boolean;
  timerMargin: string;
}

export function registerLeaks(program: Command): void {
  program
    .command("leaks")
    .description("Find goroutines that block forever across runs (P(GoUnblock) = 0 after their last block), and the data races -race runs reported; store and print them.")
    .option("--program <name>", "only this program")
    .option("--db <file>", "SQLite database", "schedlab.db")
    .option("--fail-on-leak", `exit with code ${LEAK_FOUND_EXIT_CODE} when there are findings (for CI)`)
    .option("--fail-on-race", `exit with code ${RACE_FOUND_EXIT_CODE} when -race runs reported a data race (for CI; ${LEAK_FOUND_EXIT_CODE} wins when --fail-on-leak also fails)`)
    .option("--score", "score findings and peer detectors (dump, goleak, leakprofile) against manifest labels")
    .option("--timer-margin <x>", "in a hung run, a block a timer woke before must have lasted x times its longest earlier one", "4")
    .option("--json", "machine-readable output")
    .action((flags: LeaksFlags) => {
      const timerMargin = parseNumberOption("--timer-margin", flags.timerMargin, 1);
      const db = openExistingDatabase(flags.db);
      try {
        const options = { program: flags.program, timerMargin };
        if (flags.score === true) {
          const report = scoreLeaks(db, options);
          process.stdout.write(flags.json === true ? `${JSON.stringify(report)}\n` : `${formatScore(report)}\n`);
          return;
        }
        const analysis = analyseLeaks(db, options);
        process.stdout.write(flags.json === true ? `${JSON.stringify(analysisJson(analysis))}\n` : `${formatFindings(analysis)}\n`);
        if (flags.failOnLeak === true && analysis.findings.length > 0) process.exitCode = LEAK_FOUND_EXIT_CODE;
        else if (flags.failOnRace === true && analysis.races.length > 0) process.exitCode = RACE_FOUND_EXIT_CODE;
      } finally {
        db.close();
      }
    });
}
