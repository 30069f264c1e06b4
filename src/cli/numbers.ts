// Numeric command-line values: one strict rule for every command, so "--runs 5x",
// "--jobs ''", "--seed 1.5" or "--limit ten" is an error saying what to pass, never a
// silent default or a rounded guess.

import { UsageError } from "../errors.js";

const INTEGER = /^[+-]?\d+$/;

/**
 * `text` as an integer ≥ `min`: decimal digits only (no "1e3", "0x10", "5.0" or blanks).
 * @example parseIntegerOption("--runs", "5", 1) // => 5
 */
export function parseIntegerOption(option: string, text: string, min = Number.MIN_SAFE_INTEGER): number {
  const value = Number(text);
  if (!INTEGER.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
    const what = min === 1 ? "a positive integer" : min === 0 ? "a non-negative integer" : min === Number.MIN_SAFE_INTEGER ? "an integer" : `an integer ≥ ${min}`;
    throw new UsageError(`${option} must be ${what}, got ${JSON.stringify(text)}`, `Pass e.g. ${option} ${Math.max(min, 1)}.`);
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
    throw new UsageError(`${option} must be a number ${range}, got ${JSON.stringify(text)}`, `Pass e.g. ${option} ${max === Infinity ? Math.max(min, 1) : max}.`);
  }
  return value;
}

/** A row limit: a positive integer, or 0 for no limit. */
export function parseRowLimit(option: string, text: string): number {
  const limit = parseIntegerOption(option, text, 0);
  return limit === 0 ? Infinity : limit;
}
