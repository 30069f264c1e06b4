// `leaks --format junit`: the results (ci-results.ts) as JUnit XML for test dashboards. One
// <testsuite> per program; one <testcase> per Go test — the tests the program's runs
// executed (ci-context.ts) and every test a result names, "main" for a main program,
// "(package)" for what no test owns (races, background goroutines); a <failure> per result
// with its verdict, kind and explanation (a failing test's message, a crash's header and
// stack). A baseline's accepted results are not failures: they are listed in the test case's
// <system-out>, as are failures the tracer caused. A program that did not build has an
// <error>, one with no ingested run is <skipped> (docs/ci.md, "JUnit"). Pure.

import type { ProgramKind } from "../core/index.js";
import type { CiContext } from "./ci-context.js";
import { ruleId, type CiPlace, type CiResult } from "./ci-results.js";
import { firstSentence } from "./fingerprints.js";
import type { LeakAnalysis } from "./from-database.js";

/** The test case of results no test owns in a test program. */
export const PACKAGE_CASE = "(package)";
/** The test case of a main program. */
export const MAIN_CASE = "main";

/** Characters XML 1.0 cannot hold at all (C0 controls other than tab, newline, carriage return). */
// eslint-disable-next-line no-control-regex -- matching these control characters is the point: they are replaced
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

function xmlText(text: string): string {
  return text.replace(NOT_XML, "\ufffd").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function xmlAttribute(text: string): string {
  return xmlText(text).replace(/"/g, "&quot;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
}

function attributes(values: Readonly<Record<string, string | number | undefined>>): string {
  return Object.entries(values)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([k, v]) => ` ${k}="${xmlAttribute(String(v))}"`)
    .join("");
}

interface TestCase {
  readonly name: string;
  readonly failures: CiResult[];
  readonly accepted: CiResult[];
  /** Failures the execution tracer caused: said in <system-out>, never a failure. */
  readonly tracer: string[];
  error: { readonly message: string; readonly text: string } | null;
  skipped: string | null;
}

function placeLine(p: CiPlace): string {
  const where = p.location !== null ? `${p.location.path}:${p.location.line}` : (p.site ?? "?");
  return `${where}  ${p.message}`;
}

function failureText(r: CiResult): string {
  const lines = [
    `${r.verdict.toUpperCase()} ${r.rule} [${r.fingerprint}]`,
    r.message,
    "",
    `at ${placeLine(r.primary)}`,
  ];
  if (r.related.length > 0) lines.push("related:", ...r.related.map((p) => `  ${placeLine(p)}`));
  if (r.stack.length > 0) lines.push("stack (innermost first):", ...r.stack.map((p) => `  ${placeLine(p)}`));
  const replay = r.properties.replay;
  if (typeof replay === "string") lines.push(`replay: ${replay}`);
  return lines.join("\n");
}

/** The test case a result belongs to in its program. */
function caseName(r: CiResult, kind: ProgramKind | undefined): string {
  if (kind === "main") return MAIN_CASE;
  return r.test ?? PACKAGE_CASE;
}

/** The JUnit XML of `results` from `analysis`, one suite per program in name order. */
export function junitXml(results: readonly CiResult[], analysis: LeakAnalysis, context: CiContext): string {
  const names = new Set<string>([
    ...analysis.programs.map((p) => p.program),
    ...analysis.withoutRuns,
    ...(analysis.buildErrors ?? []).map((b) => b.program),
    ...results.map((r) => r.program),
  ]);
  const runs = new Map(analysis.programs.map((p) => [p.program, p.runs]));
  const suites: string[] = [];
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const program of [...names].sort()) {
    const kind = context.programs.get(program)?.kind;
    const cases = new Map<string, TestCase>();
    const caseOf = (name: string): TestCase => {
      let c = cases.get(name);
      if (c === undefined) {
        c = { name, failures: [], accepted: [], tracer: [], error: null, skipped: null };
        cases.set(name, c);
      }
      return c;
    };
    if (kind === "main") caseOf(MAIN_CASE);
    else for (const test of context.testsRun(program)) caseOf(test);
    for (const r of results.filter((x) => x.program === program)) {
      const c = caseOf(caseName(r, kind));
      (r.baselined === null ? c.failures : c.accepted).push(r);
    }
    for (const t of analysis.tracerInduced.filter((x) => x.program === program))
      caseOf(kind === "main" ? MAIN_CASE : (t.test ?? PACKAGE_CASE)).tracer.push(
        `caused by the execution tracer, not by the code (${t.runs} run(s); ${t.replay}): ${t.message}`,
      );
    const build = (analysis.buildErrors ?? []).find((b) => b.program === program);
    if (build !== undefined)
      caseOf(kind === "main" ? MAIN_CASE : PACKAGE_CASE).error = {
        message: "the program did not build, so nothing of it ran",
        text: build.output,
      };
    else if (analysis.withoutRuns.includes(program))
      caseOf(kind === "main" ? MAIN_CASE : PACKAGE_CASE).skipped =
        "no ingested run: not analysed for leaks (run schedlab ingest)";
    if (cases.size === 0) caseOf(PACKAGE_CASE);
    const ordered = [...cases.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const counts = {
      tests: ordered.length,
      failures: ordered.filter((c) => c.failures.length > 0).length,
      errors: ordered.filter((c) => c.error !== null).length,
      skipped: ordered.filter((c) => c.skipped !== null && c.failures.length === 0).length,
    };
    totals.tests += counts.tests;
    totals.failures += counts.failures;
    totals.errors += counts.errors;
    totals.skipped += counts.skipped;
    const body = ordered.map((c) => {
      const declared =
        c.name === PACKAGE_CASE
          ? null
          : context.sources.declaration(program, c.name === MAIN_CASE ? "main" : c.name.split("/")[0]);
      const where = declared?.inRepository === true ? declared : null;
      const head = `    <testcase${attributes({ name: c.name, classname: program, file: where?.path, line: where?.line })}`;
      const inner: string[] = [];
      for (const r of c.failures) {
        const failure = { type: ruleId(r.rule), message: `${r.verdict} ${r.rule}: ${firstSentence(r.message)}` };
        inner.push(`      <failure${attributes(failure)}>${xmlText(failureText(r))}</failure>`);
      }
      if (c.error !== null)
        inner.push(
          `      <error${attributes({ type: "build", message: c.error.message })}>${xmlText(c.error.text)}</error>`,
        );
      if (c.skipped !== null && c.failures.length === 0)
        inner.push(`      <skipped${attributes({ message: c.skipped })}/>`);
      if (c.accepted.length > 0 || c.tracer.length > 0) {
        const accepted = c.accepted.map(
          (r) =>
            `accepted by the baseline [${r.fingerprint}] ${r.verdict} ${r.rule}: ${firstSentence(r.message)} (reason: ${r.baselined})`,
        );
        inner.push(`      <system-out>${xmlText([...accepted, ...c.tracer].join("\n"))}</system-out>`);
      }
      return inner.length === 0 ? `${head}/>` : `${head}>\n${inner.join("\n")}\n    </testcase>`;
    });
    const properties = [`      <property${attributes({ name: "schedlab.kind", value: kind ?? "unknown" })}/>`];
    if (runs.has(program))
      properties.push(`      <property${attributes({ name: "schedlab.runs", value: runs.get(program) })}/>`);
    suites.push(
      `  <testsuite${attributes({ name: program, ...counts })}>\n    <properties>\n` +
        `${properties.join("\n")}\n    </properties>\n${body.join("\n")}\n  </testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attributes({ name: "schedlab leaks", ...totals })}>\n${suites.join("\n")}\n</testsuites>\n`;
}
