// Number formatting shared by every text, Markdown and HTML rendering. A missing value
// (NaN, ±Infinity, null or undefined) prints as MISSING, an en dash, never as "NaN" or "n/a";
// a negative number's sign is MINUS (U+2212), never a hyphen.

/** What every rendering prints for a value that is missing or undefined. */
export const MISSING = "–";

const present = (x: number | null | undefined): x is number => typeof x === "number" && Number.isFinite(x);

/** The sign every rendering prints before a negative number: the minus sign U+2212, not a hyphen. */
export const MINUS = "\u2212";

/** x.toFixed(digits) with MINUS for a negative sign, and none where the digits shown are all zero. */
function toFixed(x: number, digits: number): string {
  const magnitude = Math.abs(x).toFixed(digits);
  return x < 0 && /[1-9]/.test(magnitude) ? `${MINUS}${magnitude}` : magnitude;
}

/** Fixed decimals, e.g. fixed(0.12345) = "0.123"; missing → "–". */
export function fixed(x: number | null | undefined, digits = 3): string {
  return present(x) ? toFixed(x, digits) : MISSING;
}

/** A share as a percentage with one decimal, e.g. pct(0.1234) = "12.3%"; missing → "–". */
export function pct(x: number | null | undefined): string {
  return present(x) ? `${toFixed(100 * x, 1)}%` : MISSING;
}

/**
 * A nominal level (a coverage target, a confidence) as a percentage with at most one decimal
 * and no trailing zero, e.g. pctLevel(0.9) = "90%", pctLevel(0.925) = "92.5%".
 */
export function pctLevel(x: number): string {
  return `${Number((100 * x).toFixed(1))}%`;
}

/** A share in percentage points with one decimal and no "+", e.g. points(0.1234) = "12.3", points(-0.02) = "−2.0"; missing → "–". */
export function points(x: number | null | undefined): string {
  return present(x) ? toFixed(100 * x, 1) : MISSING;
}

/** An interval of shares in percentage points, e.g. "[10.2, 14.8]"; no interval → "–". */
export function pctInterval(i: { readonly lower: number | null; readonly upper: number | null } | null): string {
  return i === null ? MISSING : `[${points(i.lower)}, ${points(i.upper)}]`;
}

/** A sample count: whole numbers as they are, fractional ones (tie credit) with one decimal. */
export function count(x: number): string {
  if (!Number.isFinite(x)) return MISSING;
  return Number.isInteger(x) ? String(x) : toFixed(x, 1);
}

/** A signed fixed number, e.g. "+0.062" or "−0.010" (MINUS); NaN → "–". */
export function signed(x: number | null | undefined, digits = 3): string {
  if (!present(x)) return MISSING;
  const shown = toFixed(x, digits);
  return shown.startsWith(MINUS) ? shown : `+${shown}`;
}

/** A signed share in percentage points with one decimal, e.g. signedPoints(-0.021) = "−2.1"; missing → "–". */
export function signedPoints(x: number | null | undefined): string {
  return present(x) ? signed(100 * x, 1) : MISSING;
}

/** An interval of shares in signed percentage points, e.g. "[−2.1, +3.0]"; no interval → "–". */
export function signedPointsInterval(
  i: { readonly lower: number | null; readonly upper: number | null } | null | undefined,
): string {
  return i === null || i === undefined ? MISSING : `[${signedPoints(i.lower)}, ${signedPoints(i.upper)}]`;
}

/** A p-value: 3 significant digits, "< 1e-16" below double precision; NaN → "–". */
export function pValue(p: number): string {
  if (!Number.isFinite(p)) return MISSING;
  if (p < 1e-16) return "< 1e-16";
  if (p < 0.001) return p.toExponential(1);
  return p.toFixed(3);
}

/** "[lower, upper]" with fixed decimals. */
export function interval(lower: number | null, upper: number | null, digits = 3): string {
  return `[${fixed(lower, digits)}, ${fixed(upper, digits)}]`;
}

/** "1 program", "3 programs", "2 families": a count with its noun, pluralised with "s" unless `pluralNoun` is given. */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}
