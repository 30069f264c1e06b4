// Baselines: the findings a project has accepted, so that CI fails only on new ones. A
// baseline file lists fingerprints (src/leaks/fingerprints.ts), each with what it was when
// accepted and the reason the user gives; `leaks --baseline FILE` shows the accepted ones
// but the gates do not count them, and lists the entries that match nothing any more
// (docs/ci.md, "Baselines"). Parsing and matching are pure; reading and writing the file
// are the two edges at the bottom.

import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { SchedlabError } from "../errors.js";
import { COUNTED_KINDS, countedItems, type CountedItem, type CountedKind } from "./fingerprints.js";
import type { LeakAnalysis } from "./from-database.js";

/** The layout version of a baseline file (its "schedlabBaseline" field). */
export const BASELINE_VERSION = 1;

/** The reason a saved entry gets until the user writes theirs. */
export const DEFAULT_BASELINE_REASON = "accepted as known";

export interface BaselineEntry extends CountedItem {
  /** Why it is accepted (an issue link, "fixed upstream in v2", …). */
  readonly reason: string;
}

export interface Baseline {
  readonly entries: readonly BaselineEntry[];
}

/** A baseline file that cannot be read as one: says where and what to do. */
export class BaselineFormatError extends SchedlabError {
  constructor(file: string, problem: string) {
    super(
      `${file} is not a schedlab baseline: ${problem}`,
      `Fix it by hand (docs/ci.md, "Baselines"), or move it aside and write a fresh one with \`schedlab ` +
        `leaks --save-baseline ${file}\`, then copy your reasons back.`,
    );
  }
}

/**
 * The baseline accepting every counted item of `analysis`. Reasons already given for the
 * same fingerprint in `previous` are kept; new entries get DEFAULT_BASELINE_REASON. Entries
 * of `previous` for programs outside `scope` (a `--program` run) are kept as they were.
 */
export function baselineOf(
  analysis: LeakAnalysis,
  previous: Baseline | null = null,
  scope: BaselineScope = {},
): Baseline {
  const reasons = new Map((previous?.entries ?? []).map((e) => [e.fingerprint, e.reason]));
  const seen = new Set<string>();
  const entries: BaselineEntry[] = [];
  for (const item of countedItems(analysis)) {
    if (seen.has(item.fingerprint)) continue;
    seen.add(item.fingerprint);
    entries.push({ ...item, reason: reasons.get(item.fingerprint) ?? DEFAULT_BASELINE_REASON });
  }
  const kept = (previous?.entries ?? []).filter((e) => !inScope(e, scope) && !seen.has(e.fingerprint));
  return { entries: [...entries, ...kept] };
}

/** The file's text: one entry per line group, stable order, ready to commit and edit. */
export function baselineText(baseline: Baseline): string {
  const ordered = [...baseline.entries].sort(
    (a, b) =>
      compare(a.program, b.program) ||
      compare(a.test ?? "", b.test ?? "") ||
      compare(a.kind, b.kind) ||
      compare(a.fingerprint, b.fingerprint),
  );
  const entries = ordered.map((e) => ({
    fingerprint: e.fingerprint,
    kind: e.kind,
    program: e.program,
    test: e.test,
    summary: e.summary,
    reason: e.reason,
  }));
  return `${JSON.stringify({ schedlabBaseline: BASELINE_VERSION, entries }, null, 2)}\n`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const FINGERPRINT = /^[0-9a-f]{16}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses a baseline file's text; `file` names it in errors. */
export function parseBaseline(text: string, file: string): Baseline {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new BaselineFormatError(file, `not JSON (${(error as Error).message})`);
  }
  if (!isRecord(data) || !("schedlabBaseline" in data))
    throw new BaselineFormatError(file, 'expected an object with "schedlabBaseline" and "entries"');
  if (data.schedlabBaseline !== BASELINE_VERSION)
    throw new BaselineFormatError(
      file,
      `"schedlabBaseline" is ${JSON.stringify(data.schedlabBaseline)}, this schedlab reads version ${BASELINE_VERSION}`,
    );
  if (!Array.isArray(data.entries)) throw new BaselineFormatError(file, '"entries" must be an array');
  const entries = data.entries.map((raw: unknown, i: number): BaselineEntry => {
    const where = `entry ${i + 1}`;
    if (!isRecord(raw)) throw new BaselineFormatError(file, `${where} is not an object`);
    const text = (key: string, optional = false): string | null => {
      const value = raw[key];
      if (value === undefined || value === null) {
        if (optional) return null;
        throw new BaselineFormatError(file, `${where} has no "${key}"`);
      }
      if (typeof value !== "string") throw new BaselineFormatError(file, `${where}: "${key}" must be a string`);
      return value;
    };
    const fingerprint = text("fingerprint") as string;
    if (!FINGERPRINT.test(fingerprint))
      throw new BaselineFormatError(
        file,
        `${where}: "fingerprint" must be 16 lowercase hex digits, got ${JSON.stringify(fingerprint)}`,
      );
    const kind = text("kind") as string;
    if (!(COUNTED_KINDS as readonly string[]).includes(kind))
      throw new BaselineFormatError(
        file,
        `${where}: "kind" must be one of ${COUNTED_KINDS.join(", ")}, got ${JSON.stringify(kind)}`,
      );
    const reason = text("reason") as string;
    if (reason.trim() === "")
      throw new BaselineFormatError(file, `${where} (${fingerprint}) has an empty "reason": say why it is accepted`);
    return {
      fingerprint,
      kind: kind as CountedKind,
      program: text("program") as string,
      test: text("test", true),
      summary: text("summary", true) ?? "",
      reason,
    };
  });
  return { entries };
}

/** Which programs a run looked at: all (the default), or the one `--program` named. */
export interface BaselineScope {
  readonly program?: string;
}

function inScope(entry: BaselineEntry, scope: BaselineScope): boolean {
  return scope.program === undefined || entry.program === scope.program;
}

/** A baseline held against an analysis. */
export interface BaselineMatch {
  /** The file it came from, as given. */
  readonly file: string;
  /** Fingerprints of counted items the baseline accepts: shown, never counted by a gate. */
  readonly accepted: ReadonlySet<string>;
  /** Each accepted item with its entry. */
  readonly baselined: readonly { readonly item: CountedItem; readonly entry: BaselineEntry }[];
  /** Counted items no entry accepts: what a gate counts. */
  readonly fresh: readonly CountedItem[];
  /** Entries in scope that match nothing in the analysis: fixed, or no longer seen. */
  readonly stale: readonly BaselineEntry[];
}

/** Holds `baseline` against `analysis`: entries for programs outside `scope` are neither used nor stale. */
export function matchBaseline(
  analysis: LeakAnalysis,
  baseline: Baseline,
  file: string,
  scope: BaselineScope = {},
): BaselineMatch {
  const entries = new Map(baseline.entries.filter((e) => inScope(e, scope)).map((e) => [e.fingerprint, e]));
  const items = countedItems(analysis);
  const baselined: { item: CountedItem; entry: BaselineEntry }[] = [];
  const fresh: CountedItem[] = [];
  for (const item of items) {
    const entry = entries.get(item.fingerprint);
    if (entry === undefined) fresh.push(item);
    else baselined.push({ item, entry });
  }
  const matched = new Set(items.map((i) => i.fingerprint));
  return {
    file,
    accepted: new Set(baselined.map((b) => b.item.fingerprint)),
    baselined,
    fresh,
    stale: [...entries.values()].filter((e) => !matched.has(e.fingerprint)),
  };
}

/** Reads a baseline file; a missing or malformed file is an error that says what to do. */
export function readBaseline(file: string): Baseline {
  if (!existsSync(file)) {
    throw new SchedlabError(
      `baseline ${file} does not exist`,
      `Write one with \`schedlab leaks --save-baseline ${file}\`, then commit it.`,
    );
  }
  return parseBaseline(readFileSync(file, "utf8"), file);
}

/**
 * Writes the baseline of `analysis` to `file` (through a temporary file, so an interrupted
 * write leaves the old one). Reasons are kept from `previous`, else from the file being
 * replaced when it is a readable baseline; a file there that is not one is not overwritten.
 */
export function saveBaseline(
  file: string,
  analysis: LeakAnalysis,
  previous: Baseline | null,
  scope: BaselineScope = {},
): Baseline {
  const replaced = existsSync(file) ? parseBaseline(readFileSync(file, "utf8"), file) : null;
  const prior = previous ?? replaced;
  const baseline = baselineOf(analysis, prior, scope);
  const temporary = `${file}.tmp-${process.pid}`;
  writeFileSync(temporary, baselineText(baseline));
  renameSync(temporary, file);
  return baseline;
}
