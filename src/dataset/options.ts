// Option normalisation for the dataset commands (dist, export): abstraction names and
// opening a database that must already exist.

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ABSTRACTIONS } from "./types.js";
import type { Abstraction } from "./types.js";
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
