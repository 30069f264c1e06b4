// Number formatting shared by the HTML, Markdown and terminal renderings.
// Undefined values (NaN) print as an en dash, never as "NaN".

export const MISSING = "–";

/** Fixed decimals; NaN → "–". */
export function fixed(x: number, digits = 3): string {
  return Number.isFinite(x) ? x.toFixed(digits) : MISSING;
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
