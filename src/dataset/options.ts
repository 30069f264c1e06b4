// Option normalisation for the dataset commands (dist, export): abstraction names and
// opening a database that must already exist.

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ABSTRACTIONS, RUN_STRATEGIES } from "./types.js";
import type { Abstraction, RunSelection, RunStrategy } from "./types.js";
import { DatabaseUnavailableError, UsageError } from "../errors.js";
import { openDatabase } from "../store/index.js";
import type { SchedlabDatabase } from "../store/index.js";

export function parseAbstraction(name: string): Abstraction {
  if ((ABSTRACTIONS as readonly string[]).includes(name)) return name as Abstraction;
  throw new UsageError(`unknown abstraction ${JSON.stringify(name)}`, `Use --abstraction ${ABSTRACTIONS.join(" | ")}.`);
}

/** Opens the database for dataset commands; they refresh stored states, so it is opened writable. */
export function openExistingDatabase(path: string): SchedlabDatabase {
  const file = resolve(path);
  if (!existsSync(file)) {
    throw new DatabaseUnavailableError(`no database at ${file}`, "Run `schedlab collect` (which ingests traces) first, or pass --db with the right path.");
  }
  return openDatabase(file);
}

/** `value` if it is one of `choices`, else a UsageError naming them. */
export function parseChoice<T extends string>(option: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${option} must be one of ${choices.join(", ")}, got ${JSON.stringify(value)}`, `Use ${option} ${choices.join(" | ")}.`);
}

/**
 * Parses --configs: "plain" (the default: unperturbed runs), "all", or strategies joined by
 * commas ("plain,race"). Perturbed and race runs change the distribution being modelled.
 */
export function parseRunSelection(text: string): RunSelection {
  const value = text.trim();
  if (value === "plain" || value === "all") return value;
  const parts = value.split(",").map((p) => p.trim()).filter((p) => p !== "");
  const unknown = parts.filter((p) => !(RUN_STRATEGIES as readonly string[]).includes(p));
  if (parts.length === 0 || unknown.length > 0) {
    throw new UsageError(`--configs ${JSON.stringify(text)} names no run strategy${unknown.length > 0 ? ` (unknown: ${unknown.join(", ")})` : ""}`, `Use --configs plain (default), all, or a list of ${RUN_STRATEGIES.join(", ")}.`);
  }
  return parts as RunStrategy[];
}

/** The --holdout help every dataset-reading command shows. */
export const HOLDOUT_HELP =
  "test programs: default (whole families by hash) | family:NAME | corpus:DIR | dir:PREFIX | tag:TAG | list:a,b | outcome:OUTCOME | saved name, or several joined by +; siblings of a test program never train";

/** The --configs help. */
export const CONFIGS_HELP = "which runs feed the states: plain (default, unperturbed), all, or a list of plain,race,perturb";
