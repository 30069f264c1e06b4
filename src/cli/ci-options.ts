// Options of the commands that gate CI on findings (`leaks`, `hunt`): the gates' exit
// codes, --fail-on's list of gates, the exit code of the gates that failed, and
// --repo-root. docs/ci.md, "Gates and exit codes".

import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../errors.js";
import { defaultRepoRoot, GATES, type Gate } from "../leaks/index.js";

/** Exit code of `--fail-on-leak` when there are findings (distinct from errors 1 and usage 2). */
export const LEAK_FOUND_EXIT_CODE = 3;

/** Exit code of `--fail-on-race` when -race runs reported a data race (and no leak failed the run first). */
export const RACE_FOUND_EXIT_CODE = 4;

/**
 * Exit code of `--fail-on-flaky` when a test failed only on some schedules, and of
 * `--fail-on-failing` when a test failed in every run or crashed: tests that fail.
 */
export const FLAKY_FOUND_EXIT_CODE = 5;

/** The exit code of each gate: 3 for the leak family, 4 for races, 5 for tests that fail (flaky, failing, crashed). */
export const EXIT_CODE_OF_GATE: Readonly<Record<Gate, number>> = {
  leak: LEAK_FOUND_EXIT_CODE,
  outlived: LEAK_FOUND_EXIT_CODE,
  background: LEAK_FOUND_EXIT_CODE,
  potential: LEAK_FOUND_EXIT_CODE,
  race: RACE_FOUND_EXIT_CODE,
  flaky: FLAKY_FOUND_EXIT_CODE,
  failing: FLAKY_FOUND_EXIT_CODE,
};

/**
 * --fail-on's values (repeatable, each comma-separated) as gates in GATES order; `all` is
 * every gate, `none` no gate (it stands alone). Undefined (not given) is `fallback`: no gate
 * for `leaks`, whose gates are its --fail-on-* flags; blocked-forever bugs for `hunt`.
 * @example parseFailOn(["race,leak"]) // => ["leak", "race"]
 * @example parseFailOn(undefined, ["leak"]) // => ["leak"]
 */
export function parseFailOn(values: readonly string[] | undefined, fallback: readonly Gate[] = []): Gate[] {
  if (values === undefined) return [...fallback];
  const words = values
    .flatMap((v) => v.split(","))
    .map((w) => w.trim())
    .filter((w) => w !== "");
  if (words.length === 0)
    throw new UsageError("--fail-on needs a gate", `Give ${GATES.join(", ")}, all or none, e.g. --fail-on leak,race.`);
  if (words.includes("none")) {
    if (words.length > 1)
      throw new UsageError(
        "--fail-on none stands alone",
        "Give --fail-on none to only report, or the gates that should fail the command, e.g. --fail-on leak,race.",
      );
    return [];
  }
  const unknown = words.filter((w) => w !== "all" && !(GATES as readonly string[]).includes(w));
  if (unknown.length > 0)
    throw new UsageError(
      `--fail-on: unknown gate ${unknown.map((w) => JSON.stringify(w)).join(", ")}`,
      `Give ${GATES.join(", ")}, all or none, repeated or separated by commas, e.g. --fail-on leak,race,flaky.`,
    );
  return GATES.filter((g) => words.includes("all") || words.includes(g));
}

/** The exit code of the first failed gate (they come in GATES order), or undefined when none failed. */
export function gateExitCode(failed: readonly Gate[]): number | undefined {
  return failed.length === 0 ? undefined : EXIT_CODE_OF_GATE[failed[0]!];
}

/** The --repo-root flag and its help, as `leaks` and `hunt` declare it: `.option(...REPO_ROOT_FLAG)`. */
export const REPO_ROOT_FLAG = [
  "--repo-root <dir>",
  "make SARIF, JUnit and annotation paths relative to this directory (default: the git toplevel of the " +
    "working directory, else the working directory)",
] as const;

/** --repo-root as an absolute directory; default: the git toplevel of the working directory, else the working directory. */
export function repoRootOption(given: string | undefined): string {
  if (given === undefined) return defaultRepoRoot();
  const dir = resolve(given);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(
      `--repo-root ${given} is not a directory`,
      "Pass the root of the repository the programs' sources are in.",
    );
  return dir;
}
