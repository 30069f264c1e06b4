// corpus check on the project's real corpus and on small broken corpora made in temp dirs:
// bad manifests, compile errors (main and test packages), wrong go-statement sites,
// unlabelled programs, a tree outside any Go module, and the potential-deadlock labels.

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkCorpus,
  creatorMatches,
  enclosingFunction,
  hasGoStatement,
  manifestProblems,
  runTimeExpected,
  siteProblem,
  type CorpusCheckReport,
  type Manifest,
} from "../../src/corpus/index.js";
import { runCli } from "../helpers/cli.js";

const CORPUS = fileURLToPath(new URL("../../go-programs/", import.meta.url));

const LEAKY_MAIN = `package main

import "fmt"

func main() {
	ch := make(chan int)
	go func() {
		ch <- 1
	}()
	fmt.Println("bye")
}
`;

function manifest(overrides: Record<string, unknown>): string {
  return JSON.stringify({
    kind: "main",
    pattern: "fixture",
    outcome: "leak",
    bugClass: "send-without-receiver",
    expected: [{ creator: "main.main", site: "main.go:7", reason: "chan send" }],
    showsOn: "every",
    tags: [],
    description: "a fixture",
    ...overrides,
  });
}

function writeProgram(root: string, name: string, files: Record<string, string>): void {
  mkdirSync(join(root, name), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(root, name, file), text);
}

function problemsOf(report: CorpusCheckReport, program: string): string[] {
  return report.failures.filter((f) => f.program === program).map((f) => f.problem);
}

describe("go statement sites", () => {
  it("recognises go statements and rejects other lines", () => {
    expect(hasGoStatement("\tgo func() {")).toBe(true);
    expect(hasGoStatement("\tgo p.work(w)")).toBe(true);
    expect(hasGoStatement("\tif ok { go (*Pool).Start(p) }")).toBe(true);
    expect(hasGoStatement("\tch <- 1")).toBe(false);
    expect(hasGoStatement('\tfmt.Println("go away")')).toBe(false);
    expect(hasGoStatement("\t// go func() is started below")).toBe(false);
    expect(hasGoStatement("\tgoroutines := 3")).toBe(false);
  });

  it("explains what is wrong with a site", () => {
    const read = (file: string): string | null => (file === "main.go" ? LEAKY_MAIN : null);
    expect(siteProblem("main.go:7", read)).toBeNull();
    expect(siteProblem("main.go:8", read)).toBe('site main.go:8 is not a go statement: "ch <- 1"');
    expect(siteProblem("main.go:99", read)).toBe("site main.go:99: main.go has only 12 lines");
    expect(siteProblem("other.go:3", read)).toBe("site other.go:3: other.go does not exist in the program directory");
  });
});

describe("creators of go statements", () => {
  const source = [
    "package main", // 1
    "", // 2
    "func (p *Pool) Start(n int) {", // 3
    "\tgo p.work()", // 4
    "}", // 5
    "", // 6
    "func (s Set[T]) Each(f func(T)) {", // 7
    "\tgo func() {}()", // 8
    "}", // 9
    "var x = 1", // 10
  ].join("\n");

  it("names the declaration around a line the way the runtime does", () => {
    expect(enclosingFunction(source, 4)).toBe("(*Pool).Start");
    expect(enclosingFunction(source, 8)).toBe("Set[...].Each");
    expect(enclosingFunction(source, 10)).toBeNull();
    expect(enclosingFunction(LEAKY_MAIN, 7)).toBe("main");
  });

  it("accepts the function itself and closures inside it, nothing else", () => {
    expect(creatorMatches("main.(*Pool).Start", "(*Pool).Start")).toBe(true);
    expect(creatorMatches("main.main.func2", "main")).toBe(true);
    expect(creatorMatches("schedlab.dev/corpus/kernels/abba/transfer.TestTransfer.func1.1", "TestTransfer")).toBe(true);
    expect(creatorMatches("main.Set[...].Each.func1", "Set[...].Each")).toBe(true);
    expect(creatorMatches("main.Map[...]", "Map")).toBe(true);
    expect(creatorMatches("main.(*Pool).work", "(*Pool).Start")).toBe(false);
    expect(creatorMatches("main.domain", "main")).toBe(false);
  });
});

describe("manifest findings and flaky outcomes", () => {
  const leak = JSON.parse(manifest({})) as Record<string, unknown>;
  const flaky = { ...leak, kind: "test", outcome: "flaky", bugClass: "order-violation", expected: [], showsOn: "some" };
  const entry = { creator: "main.main", site: "main.go:7", reason: "chan send" };

  it("accepts the blocked-forever and outlived finding kinds and leaves finding optional", () => {
    expect(manifestProblems({ ...leak, expected: [entry] })).toEqual([]);
    expect(manifestProblems({ ...leak, expected: [{ ...entry, finding: "blocked-forever" }] })).toEqual([]);
    expect(manifestProblems({ ...leak, expected: [{ ...entry, reason: "select", finding: "outlived" }] })).toEqual([]);
  });

  it("refuses an unknown finding and a root goroutine that outlives its own test", () => {
    expect(manifestProblems({ ...leak, expected: [{ ...entry, finding: "stale" }] })).toEqual([
      "expected[0].finding must be one of blocked-forever, outlived, potential-deadlock when present",
    ]);
    expect(
      manifestProblems({
        ...leak,
        expected: [{ creator: "x.TestY", site: null, reason: "select", finding: "outlived" }],
      }),
    ).toEqual(["expected[0]: a root goroutine (site null) cannot outlive its own test"]);
  });

  it("accepts a flaky outcome with test names and no expected goroutine", () => {
    expect(manifestProblems({ ...flaky, flakyTests: ["TestWait", "TestWait/round_1", "ExampleGroup"] })).toEqual([]);
    expect(manifestProblems({ ...flaky, flakyTests: ["TestWait"], expected: [entry] })).toEqual([]);
  });

  it("requires non-empty, well-formed flakyTests with outcome flaky and refuses them otherwise", () => {
    expect(manifestProblems(flaky)).toEqual(["outcome flaky needs flakyTests, a non-empty array of test names"]);
    expect(manifestProblems({ ...flaky, flakyTests: [] })).toEqual([
      "outcome flaky needs flakyTests, a non-empty array of test names",
    ]);
    expect(manifestProblems({ ...flaky, flakyTests: ["TestOk", "waitDrains", "TestA B", 7] })).toEqual([
      'flakyTests[1] must be a test name as go test -run takes it ("TestX", "TestX/sub"), got "waitDrains"',
      'flakyTests[2] must be a test name as go test -run takes it ("TestX", "TestX/sub"), got "TestA B"',
      'flakyTests[3] must be a test name as go test -run takes it ("TestX", "TestX/sub"), got 7',
    ]);
    expect(manifestProblems({ ...leak, flakyTests: ["TestWait"] })).toEqual([
      'flakyTests is only allowed with outcome "flaky"',
    ]);
    expect(
      manifestProblems({
        ...leak,
        outcome: "clean",
        bugClass: null,
        expected: [],
        showsOn: "never",
        flakyTests: ["TestWait"],
      }),
    ).toEqual(['flakyTests is only allowed with outcome "flaky"']);
  });
});

describe("potential-deadlock labels", () => {
  const creator = "fixture.example/corpus/order.TestOrders";
  const potential = {
    creator,
    site: "order_test.go:20",
    reason: "sync",
    finding: "potential-deadlock",
    lockSite: "order_test.go:11",
  };
  const latent = {
    ...(JSON.parse(manifest({})) as Record<string, unknown>),
    kind: "test",
    outcome: "potential-deadlock",
    bugClass: "lock-order-inversion",
    expected: [potential],
  };

  it("accepts potential deadlocks with a lock site, for a started goroutine and for the root", () => {
    expect(manifestProblems(latent)).toEqual([]);
    expect(manifestProblems({ ...latent, expected: [{ ...potential, site: null }, potential] })).toEqual([]);
  });

  it("needs a well-formed lock site and the sync reason, and refuses a lock site elsewhere", () => {
    const { lockSite: _, ...withoutLockSite } = potential;
    expect(manifestProblems({ ...latent, expected: [withoutLockSite] })).toEqual([
      'expected[0].lockSite must be "file.go:LINE" (the lock call that would block) for a potential deadlock',
    ]);
    expect(manifestProblems({ ...latent, expected: [{ ...potential, lockSite: "order_test.go" }] })).toEqual([
      'expected[0].lockSite must be "file.go:LINE" (the lock call that would block) for a potential deadlock',
    ]);
    expect(manifestProblems({ ...latent, expected: [{ ...potential, reason: "chan send" }] })).toEqual([
      'expected[0]: a potential deadlock would block in "sync", got "chan send"',
    ]);
    expect(
      manifestProblems({
        ...latent,
        outcome: "leak",
        expected: [{ creator, site: "order_test.go:20", reason: "sync", lockSite: "order_test.go:11" }],
      }),
    ).toEqual(['expected[0].lockSite is only allowed with finding "potential-deadlock"']);
  });

  it("pairs finding potential-deadlock with outcome potential-deadlock, which needs at least one", () => {
    expect(manifestProblems({ ...latent, outcome: "leak" })).toEqual([
      'expected[0]: finding "potential-deadlock" needs outcome "potential-deadlock"',
    ]);
    expect(
      manifestProblems({ ...latent, expected: [potential, { creator, site: "order_test.go:20", reason: "sync" }] }),
    ).toEqual([
      'expected[1]: outcome potential-deadlock lists only finding "potential-deadlock" (its runs leave nothing blocked)',
    ]);
    expect(manifestProblems({ ...latent, expected: [] })).toEqual([
      "outcome potential-deadlock needs at least one expected goroutine",
    ]);
    expect(manifestProblems({ ...latent, outcome: "clean", bugClass: null, showsOn: "never" })).toEqual([
      'expected[0]: finding "potential-deadlock" needs outcome "potential-deadlock"',
      "a clean program expects no blocked goroutines",
    ]);
  });

  it("leaves potential deadlocks out of what a run itself shows", () => {
    const blocked = { creator, site: "order_test.go:14", reason: "sync" };
    const mixed = {
      ...(latent as unknown as Manifest),
      expected: [potential, blocked, { ...blocked, finding: "outlived" }],
    } as Manifest;
    expect(runTimeExpected(mixed)).toEqual([blocked, { ...blocked, finding: "outlived" }]);
    expect(runTimeExpected(latent as unknown as Manifest)).toEqual([]);
  });

  it("is checked against the program's go statements and shows on some or every schedule under corpus check", async () => {
    const source = [
      "package order", // 1
      "", // 2
      'import ("sync"; "testing")', // 3
      "", // 4
      "var a, b sync.Mutex", // 5
      "", // 6
      "func ab() { a.Lock(); b.Lock(); b.Unlock(); a.Unlock() }", // 7
      "", // 8
      "func ba() {", // 9
      "\tb.Lock()", // 10
      "\ta.Lock()", // 11
      "\ta.Unlock()", // 12
      "\tb.Unlock()", // 13
      "}", // 14
      "", // 15
      "func TestOrders(t *testing.T) {", // 16
      "\tab()", // 17
      "\tdone := make(chan struct{})", // 18
      "\t// ba runs after ab released both locks", // 19
      "\tgo func() { ba(); close(done) }()", // 20
      "\t<-done", // 21
      "}", // 22
      "",
    ].join("\n");
    const root = mkdtempSync(join(tmpdir(), "schedlab-corpus-potential-"));
    try {
      writeFileSync(join(root, "go.mod"), "module fixture.example/corpus\n\ngo 1.22\n");
      writeProgram(root, "order", { "order_test.go": source, "schedlab.json": JSON.stringify(latent) });
      writeProgram(root, "never", {
        "order_test.go": source.replace("package order", "package never"),
        "schedlab.json": JSON.stringify({
          ...latent,
          showsOn: "never",
          expected: [{ ...potential, creator: "fixture.example/corpus/never.TestOrders" }],
        }),
      });
      writeProgram(root, "badsite", {
        "order_test.go": source.replace("package order", "package badsite"),
        "schedlab.json": JSON.stringify({
          ...latent,
          expected: [{ ...potential, creator: "fixture.example/corpus/badsite.TestOrders", site: "order_test.go:11" }],
        }),
      });
      const report = await checkCorpus({ dir: root });
      expect(problemsOf(report, "order")).toEqual([]);
      expect(problemsOf(report, "never")).toEqual([
        'outcome potential-deadlock must show on "every" or "some" schedule',
      ]);
      expect(problemsOf(report, "badsite")).toEqual([
        'expected[0]: site order_test.go:11 is not a go statement: "a.Lock()"',
      ]);
      expect(report.byOutcome).toEqual({ "potential-deadlock": 3 });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("corpus check of flaky tests, outlived goroutines and examples", () => {
  const WAIT_TEST =
    'package group\n\nimport "testing"\n\nfunc TestWait(t *testing.T) {\n\tt.Run("round_1", func(t *testing.T) {})\n}\n';
  const FEED_EXAMPLE = [
    "package group", // 1
    "", // 2
    'import "fmt"', // 3
    "", // 4
    "func ExampleFeed() {", // 5
    "\tfeed := make(chan string)", // 6
    "\tgo func() { fmt.Println(<-feed) }()", // 7
    '\tfmt.Println("subscribed")', // 8
    "\t// Output: subscribed", // 9
    "}", // 10
    "",
  ].join("\n");
  const flaky = (overrides: Record<string, unknown>): string =>
    manifest({
      kind: "test",
      outcome: "flaky",
      bugClass: "order-violation",
      expected: [],
      showsOn: "some",
      flakyTests: ["TestWait/round_1"],
      ...overrides,
    });
  let root: string;
  let report: CorpusCheckReport;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "schedlab-corpus-flaky-"));
    writeFileSync(join(root, "go.mod"), "module fixture.example/corpus\n\ngo 1.22\n");
    writeProgram(root, "flaky/ok", { "group_test.go": WAIT_TEST, "schedlab.json": flaky({}) });
    writeProgram(root, "flaky/missing", {
      "group_test.go": WAIT_TEST,
      "schedlab.json": flaky({ flakyTests: ["TestWait", "TestGone/sub"] }),
    });
    writeProgram(root, "flaky/main", {
      "main.go": LEAKY_MAIN,
      "schedlab.json": flaky({ kind: "main", flakyTests: ["TestWait"] }),
    });
    writeProgram(root, "outlived/main", {
      "main.go": LEAKY_MAIN,
      "schedlab.json": manifest({
        expected: [{ creator: "main.main", site: "main.go:7", reason: "chan send", finding: "outlived" }],
      }),
    });
    writeProgram(root, "outlived/example", {
      "group_test.go": WAIT_TEST,
      "example_test.go": FEED_EXAMPLE,
      "schedlab.json": manifest({
        kind: "test",
        expected: [
          {
            creator: "fixture.example/corpus/outlived/example.ExampleFeed",
            site: "example_test.go:7",
            reason: "chan receive",
          },
          {
            creator: "fixture.example/corpus/outlived/example.ExampleFeed",
            site: "example_test.go:7",
            reason: "chan receive",
            finding: "outlived",
          },
        ],
      }),
    });
    writeProgram(root, "outlived/badsite", {
      "group_test.go": WAIT_TEST,
      "example_test.go": FEED_EXAMPLE,
      "schedlab.json": manifest({
        kind: "test",
        expected: [
          {
            creator: "fixture.example/corpus/outlived/badsite.ExampleFeed",
            site: "example_test.go:6",
            reason: "chan receive",
          },
        ],
      }),
    });
    report = await checkCorpus({ dir: root, skipBuild: true });
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("accepts a flaky test program whose flakyTests name its tests, subtests included", () => {
    expect(problemsOf(report, "flaky/ok")).toEqual([]);
  });

  it("reports flakyTests naming no test function, and a flaky main program", () => {
    expect(problemsOf(report, "flaky/missing")).toEqual([
      "flakyTests[1]: no func TestGone in the program's _test.go files",
    ]);
    expect(problemsOf(report, "flaky/main")).toEqual([
      'outcome flaky needs a test program (flakyTests name tests), got kind "main"',
    ]);
  });

  it("accepts an outlived goroutine in a test program only", () => {
    expect(problemsOf(report, "outlived/main")).toEqual([
      'expected[0]: finding "outlived" (alive after the test that created it) needs a test program',
    ]);
    expect(problemsOf(report, "outlived/example")).toEqual([]);
  });

  it("checks go statement sites inside Example functions", () => {
    expect(problemsOf(report, "outlived/badsite")).toEqual([
      'expected[0]: site example_test.go:6 is not a go statement: "feed := make(chan string)"',
    ]);
  });

  it("counts flaky as an outcome of its own", () => {
    expect(report.byOutcome).toEqual({ flaky: 3, leak: 3 });
    expect(report.byShowsOn).toEqual({ some: 3, every: 3 });
  });
});

describe("corpus check on a broken fixture corpus", () => {
  let root: string;
  let report: CorpusCheckReport;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "schedlab-corpus-"));
    writeFileSync(join(root, "go.mod"), "module fixture.example/corpus\n\ngo 1.22\n");
    writeProgram(root, "ok/leaky", { "main.go": LEAKY_MAIN, "schedlab.json": manifest({}) });
    writeProgram(root, "bad/manifest", {
      "main.go": LEAKY_MAIN,
      "schedlab.json": manifest({ outcome: "flaky-ish", description: "", timeoutMs: -5 }),
    });
    writeProgram(root, "bad/json", { "main.go": LEAKY_MAIN, "schedlab.json": "{ kind: main" });
    writeProgram(root, "bad/compile", {
      "main.go": LEAKY_MAIN.replace("ch <- 1", 'ch <- "one"'),
      "schedlab.json": manifest({}),
    });
    writeProgram(root, "bad/site", {
      "main.go": LEAKY_MAIN,
      "schedlab.json": manifest({ expected: [{ creator: "main.main", site: "main.go:8", reason: "chan send" }] }),
    });
    writeProgram(root, "bad/creator", {
      "main.go": LEAKY_MAIN,
      "schedlab.json": manifest({ expected: [{ creator: "main.worker", site: "main.go:7", reason: "chan send" }] }),
    });
    writeProgram(root, "bad/kind", { "main.go": LEAKY_MAIN, "schedlab.json": manifest({ kind: "test" }) });
    writeProgram(root, "bad/testcompile", {
      "queue.go": "package queue\n\nfunc Push(q []int, v int) []int { return append(q, v) }\n",
      "queue_test.go":
        'package queue\n\nimport "testing"\n\nfunc TestPush(t *testing.T) {\n\tvar n int = Push(nil, 1)\n\t_ = n\n}\n',
      "schedlab.json": manifest({ kind: "test", outcome: "clean", bugClass: null, expected: [], showsOn: "never" }),
    });
    writeProgram(root, "plain/unlabelled", { "main.go": LEAKY_MAIN });
    report = await checkCorpus({ dir: root });
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("counts every program, labelled or not", () => {
    expect(report.programs).toBe(9);
    expect(report.byKind).toEqual({ main: 8, test: 1 });
    expect(report.unlabelled).toBe(1);
    expect(report.unlabelledPrograms).toEqual(["plain/unlabelled"]);
  });

  it("passes a correct program and does not fail an unlabelled one", () => {
    expect(problemsOf(report, "ok/leaky")).toEqual([]);
    expect(problemsOf(report, "plain/unlabelled")).toEqual([]);
  });

  it("reports manifest problems", () => {
    expect(problemsOf(report, "bad/manifest")).toEqual([
      'manifest: outcome must be one of clean, leak, deadlock, race, panic, flaky, potential-deadlock, fail, got "flaky-ish"',
      "manifest: description must be a non-empty string",
      "manifest: timeoutMs must be a positive integer (milliseconds) when present",
    ]);
    expect(problemsOf(report, "bad/json")).toHaveLength(1);
    expect(problemsOf(report, "bad/json")[0]).toMatch(/^manifest: not valid JSON \(/);
    expect(problemsOf(report, "bad/kind")).toEqual([
      'manifest says kind "test" but the directory holds a main package',
    ]);
  });

  it("reports compile errors of main and test packages against their own program", () => {
    const [main] = problemsOf(report, "bad/compile");
    expect(main).toMatch(/^does not build: main\.go:8:\d+: cannot use "one"/);
    const [test] = problemsOf(report, "bad/testcompile");
    expect(test).toMatch(/^does not build: queue_test\.go:6:\d+: cannot use Push\(nil, 1\)/);
  });

  it("reports an expected site that is not a go statement", () => {
    expect(problemsOf(report, "bad/site")).toEqual(['expected[0]: site main.go:8 is not a go statement: "ch <- 1"']);
  });

  it("reports a creator that is not the function around the go statement", () => {
    expect(problemsOf(report, "bad/creator")).toEqual([
      'expected[0]: creator "main.worker" is not main (or a closure in it), the function around main.go:7',
    ]);
  });

  it("counts outcomes of valid manifests only", () => {
    // ok/leaky, bad/compile, bad/site, bad/creator, bad/kind are valid leak manifests; bad/testcompile is clean.
    expect(report.byOutcome).toEqual({ leak: 5, clean: 1 });
    expect(report.balance.leakOrDeadlock).toBe(0.556);
  });

  it("exits non-zero from the CLI and prints the failures as JSON", async () => {
    const result = await runCli(["corpus", "check", root, "--json"]);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as CorpusCheckReport;
    expect(json.programs).toBe(9);
    expect(json.byKind).toEqual({ main: 8, test: 1 });
    expect(json.failures.map((f) => f.program).sort()).toEqual([
      "bad/compile",
      "bad/creator",
      "bad/json",
      "bad/kind",
      "bad/manifest",
      "bad/manifest",
      "bad/manifest",
      "bad/site",
      "bad/testcompile",
    ]);
  });
});

describe("corpus check outside a Go module", () => {
  it("builds each program by file list and attributes the error", async () => {
    const root = mkdtempSync(join(tmpdir(), "schedlab-nomod-"));
    try {
      writeProgram(root, "fine", { "main.go": LEAKY_MAIN });
      writeProgram(root, "broken", { "main.go": LEAKY_MAIN.replace("fmt.Println", "fmt.Printn") });
      const report = await checkCorpus({ dir: root });
      expect(report.programs).toBe(2);
      expect(report.failures).toHaveLength(1);
      expect(report.failures[0].program).toBe("broken");
      expect(report.failures[0].problem).toMatch(/^does not build: .*main\.go:10:\d+: undefined: fmt\.Printn/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("refuses a directory without Go programs with a usage error", async () => {
    const root = mkdtempSync(join(tmpdir(), "schedlab-empty-"));
    try {
      const result = await runCli(["corpus", "check", root]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("no Go programs found under");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("corpus check on the project's corpus", () => {
  it("finds every hand-written pattern labelled, building, and balanced", async () => {
    const report = await checkCorpus({ dir: join(CORPUS, "patterns") });
    expect(report.failures).toEqual([]);
    expect(report.unlabelled).toBe(0);
    expect(report.programs).toBeGreaterThanOrEqual(40);
    expect(report.byKind.test).toBe(0);
    expect(report.balance.leakOrDeadlock).toBeGreaterThanOrEqual(0.25);
    expect(report.balance.cleanHighNondeterminism).toBeGreaterThanOrEqual(0.15);
    for (const outcome of ["clean", "leak", "deadlock"]) expect(report.byOutcome[outcome]).toBeGreaterThan(0);
  });

  it("checks the whole go-programs tree from the CLI with the documented JSON shape", async () => {
    const result = await runCli(["corpus", "check", CORPUS, "--json"]);
    const json = JSON.parse(result.stdout) as CorpusCheckReport;
    expect(json.failures).toEqual([]);
    expect(result.code).toBe(0);
    expect(json.programs).toBe(json.byKind.main + json.byKind.test);
    expect(json.byKind.main).toBeGreaterThanOrEqual(40);
    const labelled = Object.values(json.byOutcome).reduce((a, b) => a + b, 0);
    expect(labelled + json.unlabelled).toBe(json.programs);
  });
});
