// One bug on a page of its own (`schedlab show`): found by its fingerprint, or a prefix of
// it, in the leak analysis of a database, and rendered as the report renders it — the same
// view and pictures, without the rest of the report.

import { SchedlabError, UsageError } from "../errors.js";
import { analyseLeaks, programsWithBug, type LeakAnalysis } from "../leaks/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { htmlDocument } from "./html.js";
import { reportPictures } from "./pictures.js";
import { bugEntries, bugEntryJson, bugHead, bugViewHtml, type BugEntry, type BugPictures } from "./sections/bugs.js";
import type { ReportMeta } from "./types.js";

/** No bug, or more than one, has a fingerprint starting with the one asked for. */
export class BugNotFoundError extends SchedlabError {}

/** The bug asked for is known, but the picture asked of it was not drawn. */
export class NoPictureError extends SchedlabError {}

export interface FoundBug {
  readonly entry: BugEntry;
  readonly analysis: LeakAnalysis;
  readonly pictures: BugPictures;
}

/** A fingerprint or a prefix of one: 1 to 16 hex digits, case-insensitive. */
export function parseFingerprintPrefix(text: string): string {
  const prefix = text.trim().toLowerCase();
  if (!/^[0-9a-f]{1,16}$/.test(prefix))
    throw new UsageError(
      `"${text}" is not a bug fingerprint`,
      "A fingerprint is 16 hex digits (a unique prefix will do); `schedlab leaks` prints each bug's in brackets.",
    );
  return prefix;
}

/**
 * The bug or potential deadlock whose fingerprint starts with `prefix`. The stored findings
 * (`leaks`, `hunt`, `run`) say which program holds it, and only that program is analysed
 * again; a prefix they do not know (a potential deadlock, a database never analysed, a stale
 * analysis) is looked for in an analysis of every program. Nothing is stored.
 */
export async function findBug(db: SchedlabDatabase, fingerprint: string): Promise<FoundBug> {
  const prefix = parseFingerprintPrefix(fingerprint);
  const stored = programsWithBug(db, prefix);
  const scopes = stored.length === 1 ? [stored[0], undefined] : [undefined];
  let matches: BugEntry[] = [];
  let analysis: LeakAnalysis | null = null;
  for (const program of scopes) {
    analysis = await analyseLeaks(db, { program, save: false });
    matches = bugEntries(analysis).filter((e) => e.fingerprint.startsWith(prefix));
    if (matches.length > 0) break;
  }
  if (matches.length === 0)
    throw new BugNotFoundError(
      `no bug of ${db.name} has a fingerprint starting with ${prefix}`,
      `\`schedlab leaks --db ${db.name}\` lists the bugs with their fingerprints in brackets ` +
        "(`--json`: bugs[].fingerprint, potentialDeadlocks[].fingerprint); `schedlab report` links each to its view.",
    );
  if (matches.length > 1)
    throw new BugNotFoundError(
      `${matches.length} bugs have a fingerprint starting with ${prefix}: ` +
        matches.map((e) => `${e.fingerprint} (${e.program})`).join(", "),
      "Give more digits of the fingerprint.",
    );
  const found = analysis as LeakAnalysis;
  return { entry: matches[0]!, analysis: found, pictures: reportPictures(db, found) };
}

/** The page of one bug: its view, with its pictures, in the report's page shell. */
export function bugPageHtml(bug: FoundBug, meta: Omit<ReportMeta, "title">): string {
  return htmlDocument({ ...meta, title: bugHead(bug.entry) }, [
    {
      id: "bug",
      title: "Bug",
      html: () => bugViewHtml(bug.entry, bug.pictures),
      markdown: () => "",
      json: () => null,
    },
  ]);
}

/** `show --json`: the bug as the report's metrics.json lists it. */
export function bugPageJson(bug: FoundBug): unknown {
  return bugEntryJson(bug.entry, bug.pictures);
}

/** One picture of the bug as a standalone SVG file's text. */
export function bugPictureSvg(bug: FoundBug, picture: "graph" | "timeline"): string {
  const svg =
    picture === "graph" ? bug.pictures.graph(bug.entry.fingerprint) : bug.pictures.timeline(bug.entry.fingerprint);
  if (svg === null)
    throw new NoPictureError(
      `no ${picture === "graph" ? "wait-for graph" : "timeline"} is available for bug ${bug.entry.fingerprint}: none was drawn`,
      "`schedlab show FINGERPRINT` without --svg writes the bug's page: why, the evidence, the stacks, and the " +
        "commands to replay it and open its trace.",
    );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${svg}\n`;
}
