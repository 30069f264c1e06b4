// `schedlab hunt` end to end on a module of its own (test/fixtures/huntmod: several packages,
// tests behind `//go:build integration`, a data race under -race, a test that leaks a
// goroutine, TestA/TestB/TestC, an example and a main package), run in-process from the
// module's directory as a Go engineer runs go test: it hunts exactly the packages and tests
// `go test -tags integration -run 'Test(A|B)'` selects (the real go command lists them), every
// package under -race; it reports the race and the leak; `--fail-on` exits with leaks' codes;
// a saved baseline makes the same command pass and a bug the baseline lacks fails it; --report
// writes the bugs as a page; `schedlab report` renders the bugs and the leak tables from the
// collection without an evaluation, and `schedlab show` one bug by its fingerprint.

import { execa } from "execa";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as Sarif from "sarif";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openDatabase } from "../../src/store/index.js";
import { runCli, type CliResult } from "../helpers/cli.js";
import { leaksJsonValidator, sarifValidator } from "../leaks/schemas.js";

const MODULE = fileURLToPath(new URL("../fixtures/huntmod/", import.meta.url)).replace(/\/$/, "");
const MODULE_PATH = "example.com/huntmod";
const SELECTION = ["./...", "--run", "Test(A|B)", "--tags", "integration", "--race"];

/** The parts of the JSON output (`leaks --json`'s) these tests read. */
interface HuntJson {
  readonly programs: readonly { readonly program: string; readonly raceRunsChecked: number }[];
  readonly withoutRuns: readonly string[];
  readonly buildErrors: readonly { readonly program: string }[];
  readonly bugs: readonly {
    readonly fingerprint: string;
    readonly program: string;
    readonly kind: string;
    readonly verdict: string;
    readonly test: string | null;
    readonly gating: boolean;
  }[];
  readonly races: readonly {
    readonly program: string;
    readonly frames: readonly string[];
    readonly accesses: readonly string[];
  }[];
  readonly counts: Record<string, number>;
  readonly baseline?: {
    readonly new: readonly { fingerprint: string }[];
    readonly accepted: readonly { fingerprint: string; reason: string }[];
    readonly stale: readonly unknown[];
  };
}

let dir: string;
let db: string;
let cwd: string;
let first: CliResult;
let firstJson: HuntJson;
/** What `go test` selects, as "pkg#Test". */
let expected: string[];

function hunt(...args: string[]): Promise<CliResult> {
  return runCli(["hunt", ...SELECTION, "--budget", "3s", "--db", db, "--traces", join(dir, "traces"), ...args]);
}

/** "pkg#Test" for every top-level test and example `go test ARGS ./...` would run, from the go command's own -list. */
async function goTestSelection(): Promise<string[]> {
  // -list ignores -run; the same regexp given to -list selects the top-level tests -run would.
  const listed = await execa("go", ["test", "./...", "-tags", "integration", "-list", "Test(A|B)"], {
    cwd: MODULE,
    all: true,
  });
  const names: string[] = [];
  const pending: string[] = [];
  for (const line of (listed.all ?? "").split("\n")) {
    const done = /^ok\s+(\S+)/.exec(line);
    if (done !== null) {
      const pkg = done[1]!.slice(MODULE_PATH.length + 1);
      names.push(...pending.map((name) => `${pkg}#${name}`));
      pending.length = 0;
    } else if (/^(Test|Example|Benchmark|Fuzz)\w*$/.test(line.trim())) {
      pending.push(line.trim());
    }
  }
  return names.sort();
}

/** "program#Test" for every top-level test the hunt's runs ran: the `=== RUN` lines of -test.v in each run's output. */
function huntedTests(): string[] {
  const store = openDatabase(db);
  try {
    const rows = store
      .prepare(
        "SELECT p.name, r.stderr_tail FROM runs r JOIN programs p ON p.id = r.program_id WHERE r.outcome <> 'build-error'",
      )
      .all() as { name: string; stderr_tail: string | null }[];
    const names = new Set<string>();
    for (const row of rows)
      for (const m of (row.stderr_tail ?? "").matchAll(/^=== RUN\s+([^/\s]+)$/gm)) names.add(`${row.name}#${m[1]}`);
    return [...names].sort();
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-hunt-"));
  db = join(dir, "hunt.db");
  cwd = process.cwd();
  process.chdir(MODULE);
  // go test's own listing compiles the test binaries: it overlaps the hunt's runs, which mostly wait.
  [first, expected] = await Promise.all([hunt("--format", "json", "--fail-on", "none"), goTestSelection()]);
  firstJson = JSON.parse(first.stdout) as HuntJson;
});

afterAll(() => {
  process.chdir(cwd);
  rmSync(dir, { recursive: true, force: true });
});

describe("schedlab hunt ./... --run 'Test(A|B)' --tags integration --race", () => {
  test("hunts exactly the packages and tests go test selects with the same arguments", () => {
    expect(first.code, first.stderr).toBe(0);
    // Not vacuous: an unanchored -run keeps TestBackoff; TestC, the example, onlyc and the main package are left out.
    expect(expected).toContain("store#TestBackoff");
    expect(expected).toContain("tagonly#TestB");
    expect(
      expected.some(
        (t) => t.endsWith("#TestC") || t.includes("Example") || t.startsWith("onlyc#") || t.startsWith("cmd/"),
      ),
    ).toBe(false);
    expect(huntedTests()).toEqual(expected);
    const programs = [
      ...firstJson.programs.map((p) => p.program),
      ...firstJson.withoutRuns,
      ...firstJson.buildErrors.map((b) => b.program),
    ].sort();
    expect(programs).toEqual([...new Set(expected.map((t) => t.split("#")[0]!))].sort());
  });

  test("runs every package under the race detector, even one whose hunt stopped at its first finding", () => {
    // fetch's hunt ends at its leak on the first (plain) run; --race then gives it a -race run.
    for (const p of firstJson.programs) expect(p.raceRunsChecked, p.program).toBeGreaterThan(0);
  });

  test("reports the data race and the leaked goroutine, as leaks --json does", () => {
    const validate = leaksJsonValidator();
    expect(validate(firstJson), validate.problems().join("\n")).toBe(true);
    expect(firstJson.races).toHaveLength(1);
    expect(firstJson.races[0]!.program).toBe("racy");
    expect(firstJson.races[0]!.frames.every((f) => f.includes("racy.(*Counter).Inc counter.go:12"))).toBe(true);
    expect([...firstJson.races[0]!.accesses].sort()).toEqual(["read", "write"]);
    const leaks = firstJson.bugs.filter((b) => b.gating);
    expect(leaks.map((b) => [b.program, b.test, b.kind])).toEqual([["fetch", "TestB", "leak"]]);
    expect(firstJson.counts).toMatchObject({ leak: 1, race: 1, flaky: 0 });
    // Progress went to stderr, findings alone to stdout.
    expect(first.stderr).toMatch(/^fetch: finding after/m);
    expect(first.stderr).toMatch(
      /^hunt: 4 program\(s\), (\d+) run\(s\) recorded \(\1 executed now\); no gate \(--fail-on none\)\.$/m,
    );
  });

  test("--fail-on leak,race exits 3 (the leak comes first) and saves a baseline; the hunt resumes without running anything", async () => {
    const baseline = join(dir, "baseline.json");
    const report = join(dir, "hunt-report");
    const gated = await hunt(
      "--format",
      "json",
      "--fail-on",
      "leak,race",
      "--save-baseline",
      baseline,
      "--report",
      report,
    );
    expect(gated.code, gated.stderr).toBe(3);
    // --report writes the page whatever the gates say: the bugs right after the overview, no prediction section.
    expect(gated.stderr).toContain(`schedlab: wrote the report to ${join(report, "index.html")}`);
    const page = readFileSync(join(report, "index.html"), "utf8");
    expect([...page.matchAll(/<section id="([\w-]+)">/g)].map((m) => m[1])).toEqual([
      "overview",
      "bugs",
      "leaks",
      "flaky",
      "programs",
    ]);
    const leak = firstJson.bugs.find((b) => b.gating)!;
    expect(page).toContain(`<a href="#bug-${leak.fingerprint}">`);
    expect(page).toContain(
      `<article class="bug" id="bug-${leak.fingerprint}" data-bug data-verdict="${leak.verdict}" data-kind="leak" data-package="fetch">`,
    );
    expect(readFileSync(join(report, "report.md"), "utf8")).toContain(
      `### ${leak.verdict.toUpperCase()} leak — fetch TestB [${leak.fingerprint}]`,
    );
    const metrics = JSON.parse(readFileSync(join(report, "metrics.json"), "utf8")) as {
      sections: { bugs: { bugs: { fingerprint: string }[] } };
    };
    expect(metrics.sections.bugs.bugs.map((b) => b.fingerprint).sort()).toEqual(
      firstJson.bugs.map((b) => b.fingerprint).sort(),
    );
    expect(gated.stderr).toMatch(
      /^hunt: 4 program\(s\), [1-9]\d* run\(s\) recorded \(0 executed now\); gates leak, race: leak, race failed \(exit 3\)\.$/m,
    );
    expect((JSON.parse(gated.stdout) as HuntJson).bugs.map((b) => b.fingerprint)).toEqual(
      firstJson.bugs.map((b) => b.fingerprint),
    );
    const saved = JSON.parse(readFileSync(baseline, "utf8")) as { entries: { kind: string; program: string }[] };
    expect(saved.entries.map((e) => [e.kind, e.program])).toEqual([
      ["leak", "fetch"],
      ["race", "racy"],
    ]);

    const accepted = await hunt("--format", "json", "--fail-on", "leak,race", "--baseline", baseline);
    expect(accepted.code, accepted.stderr).toBe(0);
    const json = JSON.parse(accepted.stdout) as HuntJson;
    expect(json.baseline!.new).toEqual([]);
    expect(json.baseline!.accepted).toHaveLength(2);
    expect(json.counts).toMatchObject({ leak: 0, race: 0 });
  });

  test("a bug the baseline does not list fails the gate: with only the leak accepted, the race exits 4 (SARIF says which is new)", async () => {
    const full = JSON.parse(readFileSync(join(dir, "baseline.json"), "utf8")) as {
      schedlabBaseline: number;
      entries: { kind: string }[];
    };
    const leakOnly = join(dir, "leak-only.json");
    writeFileSync(leakOnly, JSON.stringify({ ...full, entries: full.entries.filter((e) => e.kind === "leak") }));
    const gated = await hunt("--format", "sarif", "--fail-on", "all", "--baseline", leakOnly, "--repo-root", MODULE);
    expect(gated.code, gated.stderr).toBe(4);
    const sarif = JSON.parse(gated.stdout) as Sarif.Log;
    const validate = sarifValidator();
    expect(validate(sarif), validate.problems().join("\n")).toBe(true);
    const results = sarif.runs[0]!.results!.map((r) => [
      r.ruleId,
      r.baselineState,
      r.locations![0]!.physicalLocation?.artifactLocation?.uri,
    ]);
    expect(results).toEqual(
      expect.arrayContaining([
        ["schedlab/leak", "unchanged", "fetch/fetch.go"],
        ["schedlab/race", "new", "racy/counter.go"],
      ]),
    );
  });

  test("checks its options before hunting: a bad gate or format exits 2, a missing baseline 1, and no database is made", async () => {
    const elsewhere = join(dir, "never.db");
    const bad = await runCli(["hunt", "./...", "--db", elsewhere, "--fail-on", "leak,leaks"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown gate "leaks"');
    expect((await runCli(["hunt", "./...", "--db", elsewhere, "--format", "xml"])).code).toBe(2);
    const missing = await runCli(["hunt", "./...", "--db", elsewhere, "--baseline", join(dir, "none.json")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("does not exist");
    expect((await runCli(["hunt", "--db", elsewhere])).code).toBe(2);
    expect(existsSync(elsewhere)).toBe(false);
  });

  test("schedlab report renders the leak, race and flaky sections from the collection, without an evaluation", async () => {
    const out = join(dir, "report");
    const report = await runCli(["report", "--db", db, "--out", out, "--json"]);
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout)).toMatchObject({
      evalRunId: null,
      sections: ["overview", "bugs", "leaks", "flaky", "programs"],
    });
    const html = readFileSync(join(out, "index.html"), "utf8");
    expect(html).toContain('<section id="leaks">');
    const bug = firstJson.bugs[0]!;
    expect(html).toContain(`<code>${bug.fingerprint}</code></h3>`);
    expect(html).toContain("racy.(*Counter).Inc counter.go:12");
    expect(html).toContain('<section id="flaky">');
    expect(html).toContain("need a trained and evaluated model: run `schedlab run`");
    const markdown = readFileSync(join(out, "report.md"), "utf8");
    expect(markdown).toMatch(/\| fetch \| test \| \d+ \| \d+ \/ [1-9]\d* \/ \d+ \| .* \| confirmed, /);
    expect(markdown).toContain("4 programs (4 test, 0 main)");
  });

  test("schedlab show finds a bug by a prefix of its fingerprint: its page, its JSON; no picture, an unknown or ambiguous prefix are errors", async () => {
    const leak = firstJson.bugs.find((b) => b.gating)!;
    const page = await runCli(["show", leak.fingerprint.slice(0, 6), "--db", db]);
    expect(page.code, page.stderr).toBe(0);
    expect(page.stdout).toMatch(/^<!doctype html>/);
    expect(page.stdout).toContain(
      `<title>${leak.verdict.toUpperCase()} leak — fetch TestB [${leak.fingerprint}]</title>`,
    );
    expect(page.stdout).toContain(`<article class="bug" id="bug-${leak.fingerprint}"`);
    expect(page.stdout).toMatch(/<pre class="commands">schedlab collect --replay \d+ --db /);
    // the same bug as the report lists it
    const json = await runCli(["show", leak.fingerprint.toUpperCase(), "--db", db, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      fingerprint: leak.fingerprint,
      verdict: leak.verdict,
      kind: "leak",
      program: "fetch",
      test: "TestB",
      pictures: { graph: true, timeline: true },
    });
    const svg = await runCli(["show", leak.fingerprint, "--db", db, "--svg", "graph"]);
    expect(svg.code, svg.stderr).toBe(0);
    expect(svg.stdout).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/,
    );
    expect(svg.stdout).toContain("data-node=");
    const unknown = await runCli(["show", "ffffffffffffffff", "--db", db]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no bug of");
    expect(unknown.stderr).toContain("`schedlab leaks --db");
    // Findings never stored (a database only collected): the bug is looked for in an analysis of every program.
    const unstored = join(dir, "unstored.db");
    const store = openDatabase(db);
    try {
      store.exec(`VACUUM INTO '${unstored}'`);
    } finally {
      store.close();
    }
    const copy = openDatabase(unstored);
    try {
      copy.exec("DELETE FROM leak_findings");
    } finally {
      copy.close();
    }
    const found = await runCli(["show", leak.fingerprint.slice(0, 8), "--db", unstored, "--json"]);
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout)).toMatchObject({ fingerprint: leak.fingerprint, program: "fetch" });
    expect((await runCli(["show", "not-hex", "--db", db])).code).toBe(2);
    expect((await runCli(["show", "", "--db", db])).code).toBe(2);
  });
});

describe("schedlab hunt on failing tests and crashes", () => {
  const FAILURES = fileURLToPath(new URL("../fixtures/failures/", import.meta.url));
  const PACKAGES = ["examplefail", "poolpanic", "tracercrash"].map((p) => join(FAILURES, p));

  test("reports each failure class with its message; --fail-on failing exits 5, and the tracer's crash counts for nothing", async () => {
    const failuresDb = join(dir, "failures.db");
    const args = [...PACKAGES, "--budget", "1s", "--cpu", "2", "--db", failuresDb, "--traces", join(dir, "failures")];
    const gated = await runCli(["hunt", ...args, "--format", "json", "--fail-on", "failing"]);
    expect(gated.code, gated.stderr).toBe(5);
    expect(gated.stderr).toMatch(/; gates failing: failing failed \(exit 5\)\.$/m);
    const json = JSON.parse(gated.stdout) as {
      failing: { program: string; test: string; message: string }[];
      crashed: { program: string; test: string; kind: string; header: string }[];
      tracerInduced: { program: string; test: string; kind: string; untraced: string }[];
      counts: Record<string, number>;
    };
    const validate = leaksJsonValidator();
    expect(validate(json), validate.problems().join("\n")).toBe(true);
    expect(json.failing.map((f) => [f.program, f.test, f.message])).toEqual([
      ["examplefail", "Example_greeting", "got:\nhello\nworld\nwant:\nhello\nthere"],
    ]);
    expect(json.crashed.map((c) => [c.program, c.test, c.kind, c.header])).toEqual([
      ["poolpanic", "TestSubmit", "panic", "panic: assignment to entry in nil map"],
    ]);
    expect(json.tracerInduced.map((t) => [t.program, t.test, t.kind, t.untraced])).toEqual([
      ["tracercrash", "TestCrashUnderTracer", "fatal", "ok"],
    ]);
    expect(json.counts).toMatchObject({ failing: 2, flaky: 0 });

    // The hunt is done: the text and SARIF of the same database, with nothing run again.
    const text = await runCli(["hunt", ...args, "--format", "text"]);
    expect(text.stderr).toMatch(/\(0 executed now\)/);
    expect(text.stdout).toContain("FAILING  examplefail  Example_greeting");
    expect(text.stdout).toContain("CRASH panic  poolpanic  TestSubmit");
    expect(text.stdout).toContain("tracercrash TestCrashUnderTracer");
    const sarif = JSON.parse(
      (await runCli(["hunt", ...args, "--format", "sarif", "--repo-root", FAILURES])).stdout,
    ) as Sarif.Log;
    const results = sarif.runs[0]!.results!.map((r) => [
      r.ruleId,
      r.locations![0]!.physicalLocation?.artifactLocation?.uri,
    ]);
    expect(results).toEqual([
      ["schedlab/failing", "examplefail/greet_test.go"],
      ["schedlab/crash", "poolpanic/pool_test.go"],
    ]);
  }, 180_000);
});
