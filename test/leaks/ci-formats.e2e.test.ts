// `leaks` in CI, end to end on real runs: a test package (test/fixtures/ci/checkout: a test
// that passes, one that leaks a goroutine, one that fails only when repeated), a hung test, a
// main program's leak and a -race program are collected once with the Go toolchain; then the
// CLI prints them as SARIF (checked against the SARIF 2.1.0 schema), JUnit XML (read by
// fast-xml-parser), GitHub workflow annotations and JSON (checked against
// docs/leaks.schema.json), and a baseline is saved, accepted, outgrown by a new bug (exit 3)
// and left with a stale entry.

import { execa } from "execa";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as Sarif from "sarif";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { collect } from "../../src/collect/index.js";
import { openDatabase } from "../../src/store/index.js";
import { ingestRuns } from "../../src/trace/index.js";
import { runCli, type CliResult } from "../helpers/cli.js";
import { LEAK_PROGRAMS } from "./collected.js";
import { leaksJsonValidator, sarifValidator } from "./schemas.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
const CHECKOUT = join(REPO, "test/fixtures/ci/checkout");
const HANG = join(LEAK_PROGRAMS, "hang-test");
const SELECT = join(LEAK_PROGRAMS, "select-leak");
const DEADLOCK = join(LEAK_PROGRAMS, "wg-deadlock");
const RACY = join(REPO, "test/fixtures/leaks/loose/racy");

let dir: string;
let dbFile: string;
let traces: string;
let json: LeaksJson;
let sarif: Sarif.Log;
let junit: CliResult;
let github: CliResult;

/** The parts of `leaks --json` these tests read. */
interface LeaksJson {
  readonly bugs: readonly {
    readonly fingerprint: string;
    readonly program: string;
    readonly kind: string;
    readonly verdict: string;
    readonly test: string | null;
    readonly evidence: { readonly runtime: string | null; readonly trace: string; readonly source: string | null };
  }[];
  readonly races: readonly { readonly program: string }[];
  readonly flaky: readonly { readonly program: string; readonly test: string | null }[];
  readonly counts: Record<string, number>;
  readonly baseline?: {
    readonly new: readonly { fingerprint: string }[];
    readonly accepted: readonly { fingerprint: string; reason: string }[];
    readonly stale: readonly { fingerprint: string; reason: string }[];
  };
}

async function leaks(...args: string[]): Promise<CliResult> {
  return runCli(["leaks", "--db", dbFile, ...args]);
}

/** The 1-based line of the first line of `file` (under the repository) that contains `text`. */
function lineOf(file: string, text: string): number {
  const index = readFileSync(join(REPO, file), "utf8")
    .split("\n")
    .findIndex((l) => l.includes(text));
  if (index < 0) throw new Error(`${text} is not in ${file}`);
  return index + 1;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-ci-"));
  dbFile = join(dir, "schedlab.db");
  traces = join(dir, "traces");
  const common = { procs: [2], jobs: 2, db: dbFile, traces };
  await collect({ ...common, paths: [HANG, SELECT, CHECKOUT], runs: 3, timeoutMs: 1500 });
  // -count=2 leaves the stock TestReserveTwice reserved in package state: its second run fails.
  await collect({ ...common, paths: [CHECKOUT], runs: 2, timeoutMs: 1500, testCount: 2 });
  await collect({ ...common, paths: [RACY], runs: 2, timeoutMs: 5000, race: true });
  const db = openDatabase(dbFile);
  try {
    await ingestRuns(db);
  } finally {
    db.close();
  }
  json = JSON.parse((await leaks("--json")).stdout) as LeaksJson;
  sarif = JSON.parse((await leaks("--format", "sarif", "--repo-root", REPO)).stdout) as Sarif.Log;
  junit = await leaks("--format", "junit", "--repo-root", REPO);
  github = await leaks("--format", "github", "--repo-root", REPO);
}, 600_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function bugOf(program: string): LeaksJson["bugs"][number] {
  const bug = json.bugs.find((b) => b.program === program);
  if (bug === undefined) throw new Error(`no bug in ${program}`);
  return bug;
}

function resultOf(log: Sarif.Log, rule: string, fingerprint?: string): Sarif.Result {
  const result = log.runs[0].results?.find(
    (r) =>
      r.ruleId === rule && (fingerprint === undefined || r.partialFingerprints?.["schedlabBug/v1"] === fingerprint),
  );
  if (result === undefined) throw new Error(`no ${rule} result`);
  return result;
}

function where(location: Sarif.Location | undefined): [string | undefined, number | undefined] {
  return [location?.physicalLocation?.artifactLocation?.uri, location?.physicalLocation?.region?.startLine];
}

describe("what was collected", () => {
  test("a deadlock, two leaks, a race and a flaky test: the findings every format renders", () => {
    expect(json.bugs.map((b) => [b.program, b.kind, b.test]).sort()).toEqual([
      ["checkout", "leak", "TestQuote"],
      ["hang-test", "deadlock", "TestDrainWithoutConsumer"],
      ["select-leak", "leak", null],
    ]);
    expect(json.races.map((r) => r.program)).toEqual(["racy"]);
    expect(json.flaky.map((f) => [f.program, f.test])).toEqual([["checkout", "TestReserveTwice"]]);
  });

  test("leaks --json is valid against the repository's schema of layout version 4, which rejects a broken copy", async () => {
    const validate = leaksJsonValidator();
    const output = JSON.parse((await leaks("--json")).stdout) as Record<string, unknown>;
    expect(validate(output), validate.problems().join("\n")).toBe(true);
    expect(output.version).toBe(4);
    expect(validate({ ...output, version: 3 })).toBe(false);
    const bugs = output.bugs as Record<string, unknown>[];
    expect(validate({ ...output, bugs: [{ ...bugs[0], verdict: "certain" }] })).toBe(false);
  });
});

describe("SARIF", () => {
  test("the log is valid against the SARIF 2.1.0 schema", () => {
    const validate = sarifValidator();
    expect(validate(sarif), validate.problems().join("\n")).toBe(true);
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0].tool.driver.name).toBe("schedlab");
  });

  test("one result per bug, race and flaky test, each with its fingerprint and a level from its verdict", () => {
    const results = sarif.runs[0].results ?? [];
    expect(results.map((r) => r.ruleId).sort()).toEqual([
      "schedlab/deadlock",
      "schedlab/flaky",
      "schedlab/leak",
      "schedlab/leak",
      "schedlab/race",
    ]);
    for (const bug of json.bugs) {
      const result = resultOf(sarif, `schedlab/${bug.kind}`, bug.fingerprint);
      expect(result.partialFingerprints).toEqual({ "schedlabBug/v1": bug.fingerprint });
      expect(sarif.runs[0].tool.driver.rules?.[result.ruleIndex as number].id).toBe(result.ruleId);
    }
    // The level follows the verdict: proven (the runtime's leak profile, a hang of the whole process, a cycle) is an error.
    for (const bug of json.bugs)
      expect(resultOf(sarif, `schedlab/${bug.kind}`, bug.fingerprint).level).toBe(
        bug.verdict === "proven" ? "error" : bug.verdict === "likely" ? "warning" : "note",
      );
    // The checkout test's goroutine left sending: the runtime's leak profile proves it.
    expect(bugOf("checkout")).toMatchObject({ verdict: "proven", evidence: { runtime: "leaked" } });
    expect(resultOf(sarif, "schedlab/race").level).toBe("error");
  });

  test("the deadlock is located where the test blocks, repository-relative, with the message the explanation's paragraph", () => {
    const result = resultOf(sarif, "schedlab/deadlock");
    expect(result.locations?.[0].physicalLocation?.artifactLocation).toEqual({
      uri: "test/fixtures/leaks/programs/hang-test/queue.go",
      uriBaseId: "%SRCROOT%",
    });
    expect(where(result.locations?.[0])).toEqual([
      "test/fixtures/leaks/programs/hang-test/queue.go",
      lineOf("test/fixtures/leaks/programs/hang-test/queue.go", "q.wg.Wait()"),
    ]);
    expect(result.message.text).toMatch(/^TestDrainWithoutConsumer waits at queue\.go:\d+ in WaitGroup\.Wait\./);
    // The other goroutine of the bug, blocked sending, and where it was created.
    expect(result.relatedLocations?.map(where)).toEqual(
      expect.arrayContaining([
        [
          "test/fixtures/leaks/programs/hang-test/queue.go",
          lineOf("test/fixtures/leaks/programs/hang-test/queue.go", "q.items <- v"),
        ],
        [
          "test/fixtures/leaks/programs/hang-test/queue.go",
          lineOf("test/fixtures/leaks/programs/hang-test/queue.go", "go func() {"),
        ],
      ]),
    );
    expect(result.stacks?.[0].frames.map((f) => where(f.location))).toEqual([
      [
        "test/fixtures/leaks/programs/hang-test/queue.go",
        lineOf("test/fixtures/leaks/programs/hang-test/queue.go", "q.wg.Wait()"),
      ],
      [
        "test/fixtures/leaks/programs/hang-test/queue_test.go",
        lineOf("test/fixtures/leaks/programs/hang-test/queue_test.go", "Drain()"),
      ],
    ]);
    expect(sarif.runs[0].originalUriBaseIds?.["%SRCROOT%"].uri).toBe(`${pathToFileURL(realpathSync(REPO)).href}/`);
  });

  test("a leak's related locations name its creation site; a race's both goroutines' creation sites; a flaky test the failing line", () => {
    const leak = resultOf(sarif, "schedlab/leak", bugOf("checkout").fingerprint);
    expect(where(leak.locations?.[0])).toEqual([
      "test/fixtures/ci/checkout/checkout.go",
      lineOf("test/fixtures/ci/checkout/checkout.go", "reply <- 100"),
    ]);
    expect(leak.relatedLocations?.map(where)).toContainEqual([
      "test/fixtures/ci/checkout/checkout.go",
      lineOf("test/fixtures/ci/checkout/checkout.go", "go func() {"),
    ]);
    expect(leak.properties).toMatchObject({
      program: "checkout",
      test: "TestQuote",
      verdict: "proven",
      evidenceRuntime: "leaked",
      evidenceTrace: "never-woken",
      evidenceSource: null,
    });
    const race = resultOf(sarif, "schedlab/race");
    expect(where(race.locations?.[0])).toEqual([
      "test/fixtures/leaks/loose/racy/main.go",
      lineOf("test/fixtures/leaks/loose/racy/main.go", "hits++"),
    ]);
    const racyMain = readFileSync(join(REPO, "test/fixtures/leaks/loose/racy/main.go"), "utf8").split("\n");
    const goLines = racyMain.flatMap((l, i) => (l.includes("go record(&wg)") ? [i + 1] : []));
    expect(race.relatedLocations?.map((l) => where(l)[1]).sort()).toEqual(goLines);
    const flaky = resultOf(sarif, "schedlab/flaky");
    expect(where(flaky.locations?.[0])).toEqual([
      "test/fixtures/ci/checkout/checkout_test.go",
      lineOf("test/fixtures/ci/checkout/checkout_test.go", "reserve 2 lamps"),
    ]);
    expect(flaky.message.text).toContain("TestReserveTwice failed in 2 run(s) and passed in 3");
  });

  test("every location, related location and stack frame names a file of the repository and a line inside it", () => {
    for (const result of sarif.runs[0].results ?? []) {
      const locations = [
        ...(result.locations ?? []),
        ...(result.relatedLocations ?? []),
        ...(result.stacks ?? []).flatMap((s) => s.frames.map((f) => f.location as Sarif.Location)),
      ];
      for (const location of locations) {
        const [uri, line] = where(location);
        expect(location.physicalLocation?.artifactLocation?.uriBaseId).toBe("%SRCROOT%");
        const file = join(REPO, decodeURIComponent(uri as string));
        expect(existsSync(file), file).toBe(true);
        expect(line).toBeLessThanOrEqual(readFileSync(file, "utf8").split("\n").length);
      }
    }
  });

  test("without --repo-root, paths are relative to the git toplevel of the working directory", async () => {
    const top = (await execa("git", ["rev-parse", "--show-toplevel"], { cwd: process.cwd() })).stdout.trim();
    const log = JSON.parse((await leaks("--format", "sarif")).stdout) as Sarif.Log;
    expect(log.runs[0].originalUriBaseIds?.["%SRCROOT%"].uri).toBe(`${pathToFileURL(realpathSync(top)).href}/`);
    const uri = where(resultOf(log, "schedlab/deadlock").locations?.[0])[0] as string;
    expect(existsSync(join(top, uri))).toBe(true);
  });
});

describe("JUnit", () => {
  type Case = {
    "@_name": string;
    "@_classname": string;
    "@_file"?: string;
    failure?: { "@_type": string; "@_message": string; "#text": string }[];
  };
  type Suite = { "@_name": string; "@_tests": string; "@_failures": string; testcase: Case[] };
  const parse = (xml: string): Suite[] => {
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "@_",
      isArray: (name) => ["testsuite", "testcase", "failure"].includes(name),
    });
    return (parser.parse(xml) as { testsuites: { testsuite: Suite[] } }).testsuites.testsuite;
  };

  test("well-formed XML: one suite per program, one case per Go test, a failure per bug with its verdict, kind and explanation", () => {
    expect(XMLValidator.validate(junit.stdout)).toBe(true);
    const suites = parse(junit.stdout);
    expect(suites.map((s) => s["@_name"])).toEqual(["checkout", "hang-test", "racy", "select-leak"]);
    const checkout = suites[0];
    expect(checkout.testcase.map((c) => c["@_name"])).toEqual(["TestQuote", "TestReserveTwice", "TestTotal"]);
    const [quote, reserve, total] = checkout.testcase;
    expect(quote.failure?.map((f) => f["@_type"])).toEqual(["schedlab/leak"]);
    expect(quote.failure?.[0]["@_message"]).toMatch(
      /^proven leak: checkout\.Quote\.func1 waits at checkout\.go:\d+ in chan send\.$/,
    );
    expect(quote.failure?.[0]["#text"]).toContain(`[${bugOf("checkout").fingerprint}]`);
    expect(quote.failure?.[0]["#text"]).toContain("test/fixtures/ci/checkout/checkout.go");
    expect(reserve.failure?.map((f) => f["@_type"])).toEqual(["schedlab/flaky"]);
    expect(total.failure).toBeUndefined();
    expect(total["@_file"]).toBe("test/fixtures/ci/checkout/checkout_test.go");
    expect(checkout["@_tests"]).toBe("3");
    expect(checkout["@_failures"]).toBe("2");
    const [hang, racy, select] = suites.slice(1);
    expect(hang.testcase.map((c) => [c["@_name"], c.failure?.map((f) => f["@_type"])])).toEqual([
      ["TestDrainWithoutConsumer", ["schedlab/deadlock"]],
    ]);
    expect(racy.testcase.map((c) => [c["@_name"], c.failure?.map((f) => f["@_type"])])).toEqual([
      ["main", ["schedlab/race"]],
    ]);
    expect(select.testcase.map((c) => [c["@_name"], c.failure?.map((f) => f["@_type"])])).toEqual([
      ["main", ["schedlab/leak"]],
    ]);
  });
});

describe("GitHub annotations", () => {
  /** A workflow command line split as the runner reads it, values unescaped. */
  const command = (line: string): { command: string; properties: Record<string, string>; message: string } => {
    const match = /^::(\w+)(?: ([^:]*))?::(.*)$/.exec(line);
    if (match === null) throw new Error(`not a workflow command: ${line}`);
    const unescape = (s: string): string =>
      s.replace(/%3A/g, ":").replace(/%2C/g, ",").replace(/%0D/g, "\r").replace(/%0A/g, "\n").replace(/%25/g, "%");
    const properties = Object.fromEntries(
      (match[2] ?? "")
        .split(",")
        .filter((p) => p !== "")
        .map((p) => [p.slice(0, p.indexOf("=")), unescape(p.slice(p.indexOf("=") + 1))]),
    );
    return { command: match[1], properties, message: unescape(match[3]) };
  };

  test("one command per result: errors for proven ones on the blocking line, warnings for likely ones, escaped as the runner expects", () => {
    const lines = github.stdout.trimEnd().split("\n");
    const commands = lines.filter((l) => l.startsWith("::")).map(command);
    expect(commands).toHaveLength(5);
    const deadlock = commands.find((c) => c.message.includes(bugOf("hang-test").fingerprint));
    expect(deadlock).toMatchObject({
      command: "error",
      properties: {
        file: "test/fixtures/leaks/programs/hang-test/queue.go",
        line: String(lineOf("test/fixtures/leaks/programs/hang-test/queue.go", "q.wg.Wait()")),
        title: "schedlab: proven deadlock in hang-test TestDrainWithoutConsumer",
      },
    });
    expect(deadlock?.message).toMatch(/^TestDrainWithoutConsumer waits at queue\.go:\d+ in WaitGroup\.Wait\./);
    // Proven bugs (the runtime's proof, a hang of the whole process) are errors, likely ones warnings.
    const title = (b: LeaksJson["bugs"][number]) =>
      `schedlab: ${b.verdict} ${b.kind} in ${b.program}${b.test === null ? "" : ` ${b.test}`}`;
    expect(
      commands
        .filter((c) => c.command === "warning")
        .map((c) => c.properties.title)
        .sort(),
    ).toEqual(
      json.bugs
        .filter((b) => b.verdict === "likely")
        .map(title)
        .sort(),
    );
    expect(commands.filter((c) => c.command === "error").map((c) => c.properties.title)).toEqual(
      expect.arrayContaining(json.bugs.filter((b) => b.verdict === "proven").map(title)),
    );
    // Multi-line messages and titles with ":" travel escaped: no raw newline or unescaped separator.
    expect(github.stdout).toContain("title=schedlab%3A proven deadlock");
    expect(lines.at(-1)).toBe("schedlab leaks: 5 result(s) in 4 program(s).");
  });
});

describe("baselines", () => {
  test("save, accept, a new bug fails the gate with exit code 3, a stale entry is listed, the user's reasons survive a re-save", async () => {
    const file = join(dir, "schedlab-baseline.json");
    const saved = await leaks("--save-baseline", file);
    expect(saved.code).toBe(0);
    expect(saved.stderr).toContain(`wrote 5 baseline entries to ${file}`);
    const baseline = JSON.parse(readFileSync(file, "utf8")) as {
      schedlabBaseline: number;
      entries: {
        fingerprint: string;
        kind: string;
        program: string;
        test: string | null;
        summary: string;
        reason: string;
      }[];
    };
    expect(baseline.schedlabBaseline).toBe(1);
    expect(baseline.entries.map((e) => [e.kind, e.program, e.test, e.reason]).sort()).toEqual([
      ["deadlock", "hang-test", "TestDrainWithoutConsumer", "accepted as known"],
      ["flaky", "checkout", "TestReserveTwice", "accepted as known"],
      ["leak", "checkout", "TestQuote", "accepted as known"],
      ["leak", "select-leak", null, "accepted as known"],
      ["race", "racy", null, "accepted as known"],
    ]);
    expect(baseline.entries.find((e) => e.program === "hang-test")?.summary).toMatch(
      /^proven deadlock: TestDrainWithoutConsumer waits at queue\.go:\d+ in WaitGroup\.Wait\.$/,
    );

    const gates = ["--fail-on-leak", "--fail-on-race", "--fail-on-flaky"];
    const accepted = await leaks("--baseline", file, ...gates);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(
      `Baseline ${file}: 0 new, 5 accepted (shown above, not counted by the gates), 0 stale.`,
    );
    expect((await leaks(...gates)).code).toBe(3);

    // The user writes a reason, and keeps an entry for a bug fixed since.
    const fixed = {
      fingerprint: "0123456789abcdef",
      kind: "leak",
      program: "checkout",
      test: "TestRefund",
      summary: "likely leak: the refund worker",
      reason: "fixed in #12; drop after the release",
    };
    baseline.entries = baseline.entries.map((e) => (e.kind === "race" ? { ...e, reason: "tracked in #7" } : e));
    writeFileSync(file, JSON.stringify({ ...baseline, entries: [...baseline.entries, fixed] }, null, 2));

    // A new program with a new bug is collected into the same database.
    await collect({ paths: [DEADLOCK], runs: 2, timeoutMs: 1500, procs: [2], jobs: 2, db: dbFile, traces });
    const db = openDatabase(dbFile);
    try {
      await ingestRuns(db);
    } finally {
      db.close();
    }
    const outgrown = await leaks("--baseline", file, ...gates);
    expect(outgrown.code).toBe(3);
    const fresh = JSON.parse((await leaks("--json", "--baseline", file)).stdout) as LeaksJson & Record<string, unknown>;
    const deadlock = fresh.bugs.find((b) => b.program === "wg-deadlock");
    expect(deadlock?.kind).toBe("deadlock");
    expect(outgrown.stdout).toContain(
      `Baseline ${file}: 1 new, 5 accepted (shown above, not counted by the gates), 1 stale.`,
    );
    expect(outgrown.stdout).toContain(
      `New since the baseline (counted by the gates):\n  [${deadlock?.fingerprint}] wg-deadlock: proven deadlock: main.main waits at main.go:`,
    );
    expect(outgrown.stdout).toContain(
      "[0123456789abcdef] leak  checkout  TestRefund: likely leak: the refund worker (reason: fixed in #12; drop after the release)",
    );

    const validate = leaksJsonValidator();
    expect(validate(fresh), validate.problems().join("\n")).toBe(true);
    expect(fresh.counts).toEqual({ leak: 1, outlived: 0, background: 0, potential: 0, race: 0, flaky: 0, failing: 0 });
    expect(fresh.baseline?.new.map((n) => n.fingerprint)).toEqual([deadlock?.fingerprint]);
    expect(fresh.baseline?.stale).toEqual([fixed]);
    expect(fresh.baseline?.accepted.find((a) => a.reason === "tracked in #7")).toBeDefined();

    // SARIF marks what the baseline accepted as suppressed and unchanged, the new bug as new.
    const log = JSON.parse(
      (await leaks("--format", "sarif", "--repo-root", REPO, "--baseline", file)).stdout,
    ) as Sarif.Log;
    const sarifValid = sarifValidator();
    expect(sarifValid(log), sarifValid.problems().join("\n")).toBe(true);
    const states = (log.runs[0].results ?? []).map((r) => [
      r.ruleId,
      r.baselineState,
      r.suppressions?.[0]?.justification ?? null,
    ]);
    expect(states).toContainEqual(["schedlab/deadlock", "new", null]);
    expect(states).toContainEqual(["schedlab/race", "unchanged", "tracked in #7"]);
    expect(states.filter((s) => s[1] === "unchanged")).toHaveLength(5);

    // GitHub: the accepted ones become notices, the new one an error; JUnit fails only the new one.
    const annotations = (await leaks("--format", "github", "--repo-root", REPO, "--baseline", file)).stdout.split("\n");
    expect(annotations.filter((l) => l.startsWith("::error"))).toHaveLength(1);
    expect(annotations.filter((l) => l.startsWith("::notice"))).toHaveLength(5);
    const xml = (await leaks("--format", "junit", "--repo-root", REPO, "--baseline", file)).stdout;
    expect(xml).toMatch(/<testsuites name="schedlab leaks" tests="\d+" failures="1"/);
    expect(xml).toContain("accepted by the baseline [");

    // Re-saving keeps the reasons the user wrote and drops the stale entry.
    await leaks("--baseline", file, "--save-baseline", file);
    const resaved = JSON.parse(readFileSync(file, "utf8")) as typeof baseline;
    expect(resaved.entries).toHaveLength(6);
    expect(resaved.entries.find((e) => e.kind === "race")?.reason).toBe("tracked in #7");
    expect(resaved.entries.find((e) => e.program === "wg-deadlock")?.reason).toBe("accepted as known");
    expect(resaved.entries.some((e) => e.fingerprint === fixed.fingerprint)).toBe(false);
  });

  test("a malformed baseline is an error that says what is wrong and what to do; a missing one says how to write it", async () => {
    const file = join(dir, "broken-baseline.json");
    writeFileSync(
      file,
      JSON.stringify({
        schedlabBaseline: 1,
        entries: [{ fingerprint: "47bb98", kind: "leak", program: "p", reason: "x" }],
      }),
    );
    const broken = await leaks("--baseline", file, "--fail-on-leak");
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe("");
    expect(broken.stderr).toContain(
      `${file} is not a schedlab baseline: entry 1: "fingerprint" must be 16 lowercase hex digits, got "47bb98"`,
    );
    expect(broken.stderr).toContain("--save-baseline");
    const missing = await leaks("--baseline", join(dir, "none.json"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Write one with `schedlab leaks --save-baseline");
  });
});

describe("failing tests, crashes and the tracer's crash in every format", () => {
  const FAILURES = join(REPO, "test/fixtures/failures");
  let failuresDb: string;
  const failuresLeaks = (...args: string[]): Promise<CliResult> => runCli(["leaks", "--db", failuresDb, ...args]);

  beforeAll(async () => {
    failuresDb = join(dir, "failures.db");
    await collect({
      paths: ["examplefail", "poolpanic", "tracercrash"].map((p) => join(FAILURES, p)),
      runs: 2,
      timeoutMs: 10_000,
      procs: [2],
      jobs: 2,
      db: failuresDb,
      traces: join(dir, "failures-traces"),
    });
  }, 120_000);

  test("SARIF: schedlab/failing at the Example, schedlab/crash at the panicking frame with its stack; the tracer's crash a note", async () => {
    const log = JSON.parse((await failuresLeaks("--format", "sarif", "--repo-root", REPO)).stdout) as Sarif.Log;
    const validate = sarifValidator();
    expect(validate(log), validate.problems().join("\n")).toBe(true);
    const rules = log.runs[0].tool.driver.rules?.map((r) => r.id);
    expect(rules).toEqual(expect.arrayContaining(["schedlab/failing", "schedlab/crash"]));
    const results = log.runs[0].results ?? [];
    expect(results.map((r) => r.ruleId)).toEqual(["schedlab/failing", "schedlab/crash"]);
    const failing = resultOf(log, "schedlab/failing");
    expect(where(failing.locations?.[0])).toEqual([
      "test/fixtures/failures/examplefail/greet_test.go",
      lineOf("test/fixtures/failures/examplefail/greet_test.go", "func Example_greeting"),
    ]);
    expect(failing.message.text).toContain("got:\nhello\nworld\nwant:\nhello\nthere");
    expect(failing.level).toBe("error");
    const crash = resultOf(log, "schedlab/crash");
    expect(where(crash.locations?.[0])).toEqual([
      "test/fixtures/failures/poolpanic/pool_test.go",
      lineOf("test/fixtures/failures/poolpanic/pool_test.go", "p.counts[key]++"),
    ]);
    expect(crash.message.text).toMatch(/^TestSubmit panicked in 2 run\(s\): panic: assignment to entry in nil map\./);
    expect(crash.stacks?.[0].frames).toHaveLength(1);
    expect(crash.properties).toMatchObject({ test: "TestSubmit", crash: "panic", runsCrashed: 2 });
    const notes = log.runs[0].invocations?.[0].toolExecutionNotifications ?? [];
    expect(notes.map((n) => n.message.text)).toContainEqual(
      expect.stringMatching(/^tracercrash TestCrashUnderTracer: a crash the execution tracer caused, not the code/),
    );
  });

  test("JUnit: a <failure> on the failing Example's and the crashing test's cases; the tracer's crash in <system-out>, not a failure", async () => {
    const xml = (await failuresLeaks("--format", "junit", "--repo-root", REPO)).stdout;
    expect(XMLValidator.validate(xml)).toBe(true);
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "@_",
      isArray: (name) => ["testsuite", "testcase", "failure"].includes(name),
    });
    type Case = { "@_name": string; failure?: { "@_type": string; "#text": string }[]; "system-out"?: string };
    const suites = (parser.parse(xml) as { testsuites: { testsuite: { "@_name": string; testcase: Case[] }[] } })
      .testsuites.testsuite;
    const caseOf = (suite: string, name: string): Case | undefined =>
      suites.find((s) => s["@_name"] === suite)?.testcase.find((c) => c["@_name"] === name);
    expect(caseOf("examplefail", "Example_greeting")?.failure?.map((f) => f["@_type"])).toEqual(["schedlab/failing"]);
    expect(caseOf("examplefail", "Example_greeting")?.failure?.[0]["#text"]).toContain("want:\nhello\nthere");
    expect(caseOf("poolpanic", "TestSubmit")?.failure?.map((f) => f["@_type"])).toEqual(["schedlab/crash"]);
    const tracer = caseOf("tracercrash", "TestCrashUnderTracer");
    expect(tracer?.failure).toBeUndefined();
    expect(tracer?.["system-out"]).toMatch(/^caused by the execution tracer, not by the code/);
  });

  test("GitHub: an error per failing test and crash, a notice for the tracer's; baselines; --fail-on-failing exits 5 until accepted", async () => {
    const github = (await failuresLeaks("--format", "github", "--repo-root", REPO)).stdout.trimEnd().split("\n");
    expect(github.filter((l) => l.startsWith("::error")).map((l) => /title=([^:]*)::/.exec(l)?.[1])).toEqual([
      "schedlab%3A failing Example_greeting in examplefail",
      "schedlab%3A panic in poolpanic TestSubmit",
    ]);
    expect(github.filter((l) => l.startsWith("::notice"))).toEqual([
      expect.stringMatching(
        /^::notice title=schedlab%3A \(tracer-induced\) crash in tracercrash TestCrashUnderTracer::/,
      ),
    ]);
    expect((await failuresLeaks("--fail-on-failing")).code).toBe(5);
    expect((await failuresLeaks("--fail-on-flaky")).code).toBe(0);
    const file = join(dir, "failures-baseline.json");
    await failuresLeaks("--save-baseline", file);
    const saved = JSON.parse(readFileSync(file, "utf8")) as {
      entries: { kind: string; program: string; test: string }[];
    };
    expect(saved.entries.map((e) => [e.kind, e.program, e.test])).toEqual([
      ["failing", "examplefail", "Example_greeting"],
      ["crash", "poolpanic", "TestSubmit"],
    ]);
    expect((await failuresLeaks("--baseline", file, "--fail-on-failing")).code).toBe(0);
  });
});
