// Option parsing of the CLI, done once at the edge before anything is opened or written:
// numbers, choices (one parser for every enumerated option), and the dataset options every
// dataset-reading command shares (--abstraction, --configs, --holdout's help).

import { UsageError } from "../errors.js";
import { PREDICTOR_SPECS } from "../predict/index.js";
import {
  ABSTRACTIONS,
  RUN_STRATEGIES,
  type Abstraction,
  type RunSelection,
  type RunStrategy,
} from "../dataset/index.js";

const INTEGER = /^[+-]?\d+$/;

/**
 * `text` as an integer ≥ `min`: decimal digits only (no "1e3", "0x10", "5.0" or blanks).
 * @example parseIntegerOption("--runs", "5", 1) // => 5
 */
export function parseIntegerOption(option: string, text: string, min = Number.MIN_SAFE_INTEGER): number {
  const value = Number(text);
  if (!INTEGER.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
    const what =
      min === 1
        ? "a positive integer"
        : min === 0
          ? "a non-negative integer"
          : min === Number.MIN_SAFE_INTEGER
            ? "an integer"
            : `an integer ≥ ${min}`;
    throw new UsageError(
      `${option} must be ${what}, got ${JSON.stringify(text)}`,
      `Pass e.g. ${option} ${Math.max(min, 1)}.`,
    );
  }
  return value;
}

/** `text` as a positive integer (counts, sizes, jobs). */
export function parsePositiveInteger(option: string, text: string): number {
  return parseIntegerOption(option, text, 1);
}

/**
 * `text` as a finite number in [min, max].
 * @example parseNumberOption("--tau", "0.1", 0) // => 0.1
 */
export function parseNumberOption(option: string, text: string, min: number, max = Infinity): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < min || value > max) {
    const range = max === Infinity ? `≥ ${min}` : `in [${min}, ${max}]`;
    throw new UsageError(
      `${option} must be a number ${range}, got ${JSON.stringify(text)}`,
      `Pass e.g. ${option} ${max === Infinity ? Math.max(min, 1) : max}.`,
    );
  }
  return value;
}

/** A row limit: a positive integer, or 0 for no limit. */
export function parseRowLimit(option: string, text: string): number {
  const limit = parseIntegerOption(option, text, 0);
  return limit === 0 ? Infinity : limit;
}

/** `value` if it is one of `choices`, else a UsageError naming them. */
export function parseChoice<T extends string>(option: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(
    `${option} must be one of ${choices.join(", ")}, got ${JSON.stringify(value)}`,
    `Use ${option} ${choices.join(" | ")}.`,
  );
}

/** --abstraction: one of ABSTRACTIONS. */
export function parseAbstraction(name: string): Abstraction {
  return parseChoice("--abstraction", name, ABSTRACTIONS);
}

/**
 * Parses --configs: "plain" (the default: unperturbed runs), "all", or strategies joined by
 * commas ("plain,race"). Perturbed and race runs change the distribution being modelled.
 */
export function parseRunSelection(text: string): RunSelection {
  const value = text.trim();
  if (value === "plain" || value === "all") return value;
  const parts = value
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  const unknown = parts.filter((p) => !(RUN_STRATEGIES as readonly string[]).includes(p));
  if (parts.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `--configs ${JSON.stringify(text)} names no run strategy${unknown.length > 0 ? ` (unknown: ${unknown.join(", ")})` : ""}`,
      `Use --configs plain (default), all, or a list of ${RUN_STRATEGIES.join(", ")}.`,
    );
  }
  return parts as RunStrategy[];
}

/** --max-samples-per-program of dist, train and eval: one option, one meaning (docs/dataset.md, "Bounded per program"). */
export const MAX_SAMPLES_HELP =
  "samples one program may put into the data (each side of a split); above it the samples at the " +
  "whole-run positions 0, s, 2s … of each of its runs are kept, the same for every predictor (docs/dataset.md)";

/** The --holdout help every dataset-reading command shows. */
export const HOLDOUT_HELP =
  "test programs: default (whole families by hash) | family:NAME | corpus:DIR | corpus-file:FILE | dir:PREFIX | tag:TAG | " +
  "list:a,b | outcome:OUTCOME | saved name, or several joined by +; siblings of a test program never " +
  "train";

/** The --train-on help of train and eval. */
export const TRAIN_ON_HELP =
  "train only on the programs this spec selects (the forms of --holdout but default, e.g. corpus:go-programs or " +
  "corpus-file:FILE for the modules a corpus file lists); the holdout's families stay out of it";

/** The --predictor help: every backend a spec can name. */
export const PREDICTOR_SPECS_HELP = PREDICTOR_SPECS.join(" | ");

/** The --configs help. */
export const CONFIGS_HELP =
  "which runs feed the states: plain (default, unperturbed), all, or a list of plain,race,perturb";
