// `leaks --format sarif`: the results (ci-results.ts) as a SARIF 2.1.0 log for code scanning
// (GitHub, GitLab, IDE viewers). One result per bug, potential deadlock, race, flaky test,
// failing test and crash (failures the tracer caused are notifications, not results);
// paths relative to the repository root under the uriBaseId %SRCROOT%; the fingerprint in
// partialFingerprints so a scanner tracks one alert across runs; a baseline's accepted
// results suppressed with its reason (docs/ci.md, "SARIF"). Types from @types/sarif. Pure.

import { pathToFileURL } from "node:url";
import type * as Sarif from "sarif";
import { SCHEDLAB_VERSION } from "../version.js";
import { CI_RULES, ruleId, type CiPlace, type CiResult } from "./ci-results.js";
import type { LeakAnalysis } from "./from-database.js";
import type { SourceLocation } from "./source-paths.js";

/** The tag each rule gets beside "concurrency" and "go" (the others: "goroutine"). */
const RULE_TAG: Partial<Record<CiResult["rule"], string>> = {
  race: "data-race",
  flaky: "flaky-test",
  failing: "failing-test",
  crash: "crash",
};

/** The key of the fingerprint in partialFingerprints; its version changes when the fingerprint's recipe does. */
export const SARIF_FINGERPRINT_KEY = "schedlabBug/v1";

/** The uriBaseId of every repository-relative path. */
export const SOURCE_ROOT = "%SRCROOT%";

export const SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json";

function artifactLocation(location: SourceLocation): Sarif.ArtifactLocation {
  if (!location.inRepository) return { uri: pathToFileURL(location.path).href };
  return { uri: location.path.split("/").map(encodeURIComponent).join("/"), uriBaseId: SOURCE_ROOT };
}

/** The function a place names: the resolved one, else the site's text before its file. */
function functionOf(p: CiPlace): string {
  if (p.location !== null && p.location.function !== "") return p.location.function;
  if (p.site === null || !p.site.includes(" ")) return "";
  return p.site.slice(0, p.site.lastIndexOf(" "));
}

function sarifLocation(p: CiPlace, id?: number): Sarif.Location {
  const location: Sarif.Location = { message: { text: p.message } };
  if (id !== undefined) location.id = id;
  if (p.location !== null) {
    location.physicalLocation = {
      artifactLocation: artifactLocation(p.location),
      ...(p.location.line >= 1 ? { region: { startLine: p.location.line } } : {}),
    };
  }
  const fn = functionOf(p);
  if (fn !== "") location.logicalLocations = [{ fullyQualifiedName: fn, kind: "function" }];
  return location;
}

function sarifResult(result: CiResult, ruleIndex: number, withBaseline: boolean): Sarif.Result {
  const out: Sarif.Result = {
    ruleId: ruleId(result.rule),
    ruleIndex,
    kind: "fail",
    level: result.severity,
    message: { text: result.message },
    locations: [sarifLocation(result.primary)],
    partialFingerprints: { [SARIF_FINGERPRINT_KEY]: result.fingerprint },
    properties: { ...result.properties, title: result.title },
  };
  if (result.related.length > 0) out.relatedLocations = result.related.map((p, i) => sarifLocation(p, i + 1));
  if (result.stack.length > 0)
    out.stacks = [
      {
        message: {
          text:
            result.rule === "crash"
              ? "user frames of the crashing goroutine, innermost first"
              : "user frames where it blocks, innermost first",
        },
        frames: result.stack.map((p) => ({ location: sarifLocation(p) })),
      },
    ];
  if (withBaseline) out.baselineState = result.baselined === null ? "new" : "unchanged";
  if (result.baselined !== null)
    out.suppressions = [{ kind: "external", status: "accepted", justification: result.baselined }];
  return out;
}

export interface SarifOptions {
  /** The repository root the paths are relative to (absolute). */
  readonly repoRoot: string;
  /** A baseline was held against the results: every result gets a baselineState. */
  readonly withBaseline: boolean;
}

/** The SARIF log of `results` from `analysis`: build errors, programs without runs and the analysis's notes as notifications. */
export function sarifLog(results: readonly CiResult[], analysis: LeakAnalysis, options: SarifOptions): Sarif.Log {
  const rules: Sarif.ReportingDescriptor[] = CI_RULES.map((r) => ({
    id: ruleId(r.kind),
    name: r.name,
    shortDescription: { text: r.short },
    fullDescription: { text: r.description },
    help: {
      text: `${r.description} Each result says why, where the goroutines wait and what to run to replay it; see schedlab's docs/ci.md and docs/leaks.md.`,
    },
    defaultConfiguration: {
      level:
        r.kind === "inconclusive" || r.kind === "background"
          ? "note"
          : r.kind === "potential-deadlock" || r.kind === "outlived"
            ? "warning"
            : "error",
    },
    properties: {
      tags: ["concurrency", "go", RULE_TAG[r.kind] ?? "goroutine"],
      precision:
        r.kind === "race" || r.kind === "deadlock" || r.kind === "flaky" || r.kind === "failing" || r.kind === "crash"
          ? "very-high"
          : "high",
    },
  }));
  const ruleIndex = new Map(CI_RULES.map((r, i) => [r.kind, i]));
  const notifications: Sarif.Notification[] = [
    ...(analysis.buildErrors ?? []).map((b) => ({
      level: "error" as const,
      message: {
        text: `${b.program} did not build, so it was not analysed: ${b.output.split("\n").find((l) => l.trim() !== "") ?? ""}`,
      },
    })),
    ...analysis.withoutRuns.map((p) => ({
      level: "warning" as const,
      message: { text: `${p} has no ingested run, so it was not analysed for leaks (run schedlab ingest)` },
    })),
    ...analysis.tracerInduced.map((t) => ({
      level: "note" as const,
      message: {
        text:
          `${t.program}${t.test === null ? "" : ` ${t.test}`}: a ${t.kind === "fail" ? "failure" : "crash"} the execution ` +
          `tracer caused, not the code (${t.runs} run(s); not a result): ${t.message.split("\n")[0] ?? ""}`,
      },
    })),
    ...analysis.notes.map((n) => ({ level: "note" as const, message: { text: n } })),
  ];
  const root = pathToFileURL(options.repoRoot).href;
  return {
    $schema: SARIF_SCHEMA_URI,
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "schedlab", semanticVersion: SCHEDLAB_VERSION, version: SCHEDLAB_VERSION, rules } },
        originalUriBaseIds: { [SOURCE_ROOT]: { uri: root.endsWith("/") ? root : `${root}/` } },
        invocations: [
          {
            executionSuccessful: true,
            ...(notifications.length > 0 ? { toolExecutionNotifications: notifications } : {}),
          },
        ],
        results: results.map((r) => sarifResult(r, ruleIndex.get(r.rule) as number, options.withBaseline)),
      },
    ],
  };
}
