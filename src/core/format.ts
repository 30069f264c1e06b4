// Number formatting shared by every text, Markdown and HTML rendering. A missing value
// (NaN, ±Infinity, null or undefined) prints as MISSING, an en dash, never as "NaN" or "n/a".

/** What every rendering prints for a value that is missing or undefined. */
export const MISSING = "–";

const present = (x: number | null | undefined): x is number => typeof x === "number" && Number.isFinite(x);

/** Fixed decimals, e.g. fixed(0.12345) = "0.123"; missing → "–". */
export function fixed(x: number | null | undefined, digits = 3): string {
  return present(x) ? x.toFixed(digits) : MISSING;
}

/** A share as a percentage with one decimal, e.g. pct(0.1234) = "12.3%"; missing → "–". */
export function pct(x: number | null | undefined): string {
  return present(x) ? `${(100 * x).toFixed(1)}%` : MISSING;
}

/**
 * A nominal level (a coverage target, a confidence) as a percentage with at most one decimal
 * and no trailing zero, e.g. pctLevel(0.9) = "90%", pctLevel(0.925) = "92.5%".
 */
export function pctLevel(x: number): string {
  return `${Number((100 * x).toFixed(1))}%`;
}

/** A share in percentage points with one decimal and no sign, e.g. points(0.1234) = "12.3"; missing → "–". */
export function points(x: number | null | undefined): string {
  return present(x) ? (100 * x).toFixed(1) : MISSING;
}

/** An interval of shares in percentage points, e.g. "[10.2, 14.8]"; no interval → "–". */
export function pctInterval(i: { readonly lower: number | null; readonly upper: number | null } | null): string {
  return i === null ? MISSING : `[${points(i.lower)}, ${points(i.upper)}]`;
}

/** A sample count: whole numbers as they are, fractional ones (tie credit) with one decimal. */
export function count(x: number): string {
  if (!Number.isFinite(x)) return MISSING;
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

/** A signed fixed number, e.g. "+0.062" or "-0.010"; NaN → "–". */
export function signed(x: number, digits = 3): string {
  if (!Number.isFinite(x)) return MISSING;
  return `${x >= 0 ? "+" : "-"}${Math.abs(x).toFixed(digits)}`;
}

/** A p-value: 3 significant digits, "< 1e-16" below double precision; NaN → "–". */
export function pValue(p: number): string {
  if (!Number.isFinite(p)) return MISSING;
  if (p < 1e-16) return "< 1e-16";
  if (p < 0.001) return p.toExponential(1);
  return p.toFixed(3);
}

/** "[lower, upper]" with fixed decimals. */
export function interval(lower: number, upper: number, digits = 3): string {
  return `[${fixed(lower, digits)}, ${fixed(upper, digits)}]`;
}

/** "1 program", "3 programs", "2 families": a count with its noun, pluralised with "s" unless `pluralNoun` is given. */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : pluralNoun}`;
}
