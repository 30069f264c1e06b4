// The output of `schedlab leaks` in each --format: text and JSON (format.ts) with the
// baseline's status after them, SARIF, JUnit XML and GitHub workflow annotations (from the
// results of ci-results.ts). docs/ci.md describes each.

import { githubAnnotations } from "./annotations.js";
import type { BaselineMatch } from "./baseline.js";
import { baselineJson, formatBaselineStatus } from "./baseline-format.js";
import { ciContext } from "./ci-context.js";
import { ciResults } from "./ci-results.js";
import { analysisJson, formatFindings } from "./format.js";
import type { LeakAnalysis } from "./from-database.js";
import { gateCounts } from "./gates.js";
import { junitXml } from "./junit.js";
import { sarifLog } from "./sarif.js";
import type { SchedlabDatabase } from "../store/index.js";

export const LEAKS_FORMATS = ["text", "json", "sarif", "junit", "github"] as const;
export type LeaksFormat = (typeof LEAKS_FORMATS)[number];

export interface LeaksOutputOptions {
  readonly format: LeaksFormat;
  /** The repository root sites are made relative to (SARIF, JUnit, GitHub). */
  readonly repoRoot: string;
  /** The baseline held against the analysis, if any. */
  readonly baseline: BaselineMatch | null;
}

/**
 * The analysis as `format` prints it, ending in a newline. With a baseline, JSON's `counts`
 * leave out what it accepted and a `baseline` object says what is new, accepted and stale.
 */
export function leaksOutput(db: SchedlabDatabase, analysis: LeakAnalysis, options: LeaksOutputOptions): string {
  const match = options.baseline;
  switch (options.format) {
    case "text":
      return `${formatFindings(analysis)}${match === null ? "" : `\n\n${formatBaselineStatus(match)}`}\n`;
    case "json": {
      const json = analysisJson(analysis);
      return `${JSON.stringify(match === null ? json : { ...json, counts: gateCounts(analysis, match.accepted), baseline: baselineJson(match) })}\n`;
    }
    case "sarif":
    case "junit":
    case "github": {
      const context = ciContext(db, options.repoRoot, match);
      const results = ciResults(analysis, context);
      if (options.format === "sarif")
        return `${JSON.stringify(sarifLog(results, analysis, { repoRoot: context.sources.repoRoot, withBaseline: match !== null }), null, 2)}\n`;
      if (options.format === "junit") return junitXml(results, analysis, context);
      return githubAnnotations(results, analysis);
    }
  }
}
