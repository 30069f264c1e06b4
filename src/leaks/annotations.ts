// `leaks --format github`: the results (ci-results.ts) as GitHub Actions workflow commands,
// one `::error` / `::warning` line per result, which the runner turns into annotations on
// the file and line. Proven results (deadlocks, cycles, races, flaky and failing tests,
// crashes) are errors;
// likely, inconclusive and potential ones warnings; results a baseline accepted notices.
// Values are escaped as the runner unescapes them: in the message %, CR and LF; in
// properties also ":" and "," (docs/ci.md, "GitHub annotations"). Pure.

import type { CiResult } from "./ci-results.js";
import type { LeakAnalysis } from "./from-database.js";

/** The message of a workflow command: %, CR and LF percent-encoded. */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A property value of a workflow command: as data, and ":" and "," too (they separate properties). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

export type AnnotationCommand = "error" | "warning" | "notice";

/** One workflow command line. */
export function workflowCommand(
  command: AnnotationCommand,
  properties: Readonly<Record<string, string | number | undefined>>,
  message: string,
): string {
  const props = Object.entries(properties)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(",");
  return `::${command}${props === "" ? "" : ` ${props}`}::${escapeData(message)}`;
}

function commandOf(result: CiResult): AnnotationCommand {
  if (result.baselined !== null) return "notice";
  return result.verdict === "proven" ? "error" : "warning";
}

/** The annotation of one result: on its primary place when that is in the repository. */
function annotation(result: CiResult): string {
  const at = result.primary.location?.inRepository === true ? result.primary.location : null;
  const related = result.related
    .filter((p) => p.location?.inRepository === true)
    .map((p) => `${p.location?.path}:${p.location?.line}: ${p.message}`);
  const lines = [
    result.message,
    ...(related.length > 0 ? ["", ...related] : []),
    `[${result.fingerprint}]${result.baselined === null ? "" : ` accepted by the baseline: ${result.baselined}`}`,
  ];
  const title = `schedlab: ${result.baselined === null ? "" : "(baselined) "}${result.title}`;
  return workflowCommand(commandOf(result), { file: at?.path, line: at?.line, title }, lines.join("\n"));
}

/**
 * The annotation lines of `results`, then one per program that did not build, a notice per
 * failure the tracer caused (not the code's: no gate counts it), and a closing plain line that
 * counts what the gates count: new results (and accepted ones with a baseline).
 */
export function githubAnnotations(results: readonly CiResult[], analysis: LeakAnalysis): string {
  const lines = results.map(annotation);
  for (const b of analysis.buildErrors ?? [])
    lines.push(workflowCommand("error", { title: `schedlab: ${b.program} did not build` }, b.output.trim()));
  for (const t of analysis.tracerInduced)
    lines.push(
      workflowCommand(
        "notice",
        {
          title:
            `schedlab: (tracer-induced) ${t.kind === "fail" ? "failure" : "crash"} in ${t.program}` +
            `${t.test === null ? "" : ` ${t.test}`}`,
        },
        `${t.message}\n(caused by the execution tracer, not by the code; ${t.runs} run(s); ${t.replay})`,
      ),
    );
  const fresh = results.filter((r) => r.baselined === null).length;
  const accepted = results.length - fresh;
  lines.push(
    `schedlab leaks: ${fresh} result(s)${accepted > 0 ? ` not in the baseline, ${accepted} accepted by it` : ""} in ${analysis.programs.length} program(s).`,
  );
  return `${lines.join("\n")}\n`;
}
