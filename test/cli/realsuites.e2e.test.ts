// `schedlab hunt ./...` on test/fixtures/realsuites, programs of our own that behave like real
// test suites (its README): with no --timeout, a 30 s suite gets its whole first run and its
// late leak is found; tests run in their package directory; servers left running, a ticker of
// a test cut by an example hanging on the network, and the daemons' lifetimes get their kinds;
// every failure class is reported with its message; a deadlock is stopped as proven hung
// within seconds; the gate fails (exit 3) on the blocked-forever bugs only, all of them labelled.
// The budget is 5 s to keep the suite short (bench/hunt-suite.mjs measures the default 20 s).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { scoreLeaks, type LeakScoreReport } from "../../src/leaks/index.js";
import { openDatabase } from "../../src/store/index.js";
import { runCli, type CliResult } from "../helpers/cli.js";

const SUITES = fileURLToPath(new URL("../fixtures/realsuites/", import.meta.url));

interface Finding {
  readonly program: string;
  readonly kind: string;
  readonly reason: string;
  readonly creationSiteKey: string | null;
  readonly gating: boolean;
  readonly test: string | null;
}

interface HuntJson {
  readonly bugs: readonly {
    readonly program: string;
    readonly kind: string;
    readonly verdict: string;
    readonly gating: boolean;
    readonly evidence: { readonly runtime: string | null };
  }[];
  readonly findings: readonly Finding[];
  readonly failing: readonly { readonly program: string; readonly test: string; readonly message: string }[];
  readonly crashed: readonly {
    readonly program: string;
    readonly test: string;
    readonly kind: string;
    readonly message: string;
  }[];
  readonly flaky: readonly { readonly program: string }[];
  readonly tracerInduced: readonly { readonly program: string; readonly test: string | null }[];
  readonly programs: readonly {
    readonly program: string;
    readonly runs: number;
    readonly runEnds: {
      readonly cut: number;
      readonly budget: number;
      readonly hung: number;
      readonly outside: readonly { readonly wait: string; readonly top: string | null }[];
      readonly daemon: string | null;
    };
  }[];
}

let dir: string;
let db: string;
let hunted: CliResult;
let json: HuntJson;
let score: LeakScoreReport;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-realsuites-"));
  db = join(dir, "hunt.db");
  const cwd = process.cwd();
  process.chdir(SUITES);
  try {
    hunted = await runCli([
      "hunt",
      "./...",
      "--budget",
      "5s",
      "--format",
      "json",
      "--db",
      db,
      "--traces",
      join(dir, "t"),
    ]);
  } finally {
    process.chdir(cwd);
  }
  json = JSON.parse(hunted.stdout) as HuntJson;
  const store = openDatabase(db);
  try {
    score = await scoreLeaks(store);
  } finally {
    store.close();
  }
}, 600_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const ends = (program: string) => json.programs.find((p) => p.program === program)!.runEnds;

describe("schedlab hunt ./... on suites that behave like real ones", () => {
  test("fails the default gate on the blocked-forever bugs, every one of them labelled: none is false", () => {
    expect(hunted.code, hunted.stderr).toBe(3);
    const gating = json.bugs.filter((b) => b.gating).map((b) => `${b.program} ${b.kind}`);
    expect(gating.sort()).toEqual(["daemonleak leak", "deadlock deadlock", "longsuite leak"]);
    const own = score.detectors.find((d) => d.detector === "schedlab")!;
    expect(own.score.overall).toMatchObject({ falsePositives: 0, missed: 0 });
    expect(own.score.programs.flatMap((p) => p.kindDiffers)).toEqual([]);
    expect(own.score).toMatchObject({ cleanProgramsFlagged: 0, falsePositivesOnClean: 0 });
  });

  test("a 30 s suite gets its whole first run without --timeout, and its late leak is proven by the runtime", () => {
    expect(ends("longsuite")).toMatchObject({ cut: 0, hung: 0 });
    const leak = json.findings.find((f) => f.program === "longsuite" && f.gating)!;
    expect(leak).toMatchObject({
      kind: "leak",
      reason: "chan send",
      creationSiteKey: "fetcher.go:22",
      test: "TestZZShutdownDrain",
    });
    expect(json.bugs.find((b) => b.program === "longsuite")).toMatchObject({
      verdict: "proven",
      evidence: { runtime: "leaked" },
    });
    expect(hunted.stderr).toMatch(
      /^longsuite: .*a plain run takes \d+s, longer than the 5\.0s budget: it got one complete plain run/m,
    );
  });

  test("tests run in their package directory: the files beside their source are found, os.Getwd() is theirs", () => {
    expect(json.failing.filter((f) => f.program === "filesbeside")).toEqual([]);
    expect(json.crashed.filter((c) => c.program === "filesbeside")).toEqual([]);
    expect(json.programs.find((p) => p.program === "filesbeside")!.runs).toBeGreaterThan(0);
  });

  test("servers never shut down and tickers never stopped outlived their tests; a daemon's main is its lifetime", () => {
    const outlived = (program: string) =>
      json.findings
        .filter((f) => f.program === program && f.kind === "outlived")
        .map((f) => `${f.reason} ${f.creationSiteKey}`)
        .sort();
    expect(outlived("server")).toEqual(
      expect.arrayContaining(["network server_test.go:72", "network server_test.go:83"]),
    );
    expect(outlived("netexample")).toContain("select fetch.go:32");
    expect(outlived("hangexample")).toContain("select fetch.go:32");
    expect(json.findings.filter((f) => f.program === "daemon" && (f.gating || f.kind === "outlived"))).toEqual([]);
    expect(ends("daemon")).toMatchObject({ budget: 1, cut: 0 });
    expect(ends("daemon").daemon).toMatch(/main\.go:\d+$/);
  });

  test("an example hanging on the network is where the run hung, never a deadlock of the user's goroutines", () => {
    const hang = ends("hangexample");
    expect(hang.cut).toBeGreaterThan(0);
    expect(hang.outside[0]).toMatchObject({ wait: "IO wait" });
    expect(hang.outside[0]!.top).toMatch(/hangexample\.Fetch fetch\.go:\d+$/);
    expect(json.bugs.filter((b) => b.program === "hangexample" && b.kind === "deadlock")).toEqual([]);
  });

  test("a deadlock with go test's 10 minutes is stopped as proven hung within seconds", () => {
    expect(ends("deadlock").hung).toBeGreaterThan(0);
    expect(json.bugs.find((b) => b.program === "deadlock")).toMatchObject({ kind: "deadlock", verdict: "proven" });
  });

  test("every failure class is reported with its message", () => {
    const failing = Object.fromEntries(json.failing.map((f) => [`${f.program} ${f.test}`, f.message]));
    expect(failing["failing TestAlwaysFails"]).toContain("want 3 items, got 2");
    expect(failing["failing ExampleGreeting"]).toMatch(/got:\nhello, world\nwant:\nHello, World!/);
    expect(failing["netexample ExampleFetch"]).toMatch(/got:\nerror: read tcp .*i\/o timeout\nwant:\nhello/);
    const crashed = Object.fromEntries(json.crashed.map((c) => [`${c.program} ${c.test}`, c]));
    expect(crashed["panicky TestWorkerPanics"]).toMatchObject({ kind: "panic" });
    expect(crashed["panicky TestWorkerPanics"]!.message).toContain("pool: task 3 returned a nil result");
    expect(crashed["fatal TestConcurrentMapWrites"]).toMatchObject({ kind: "fatal" });
    expect(crashed["fatal TestConcurrentMapWrites"]!.message).toContain("concurrent map writes");
    expect(json.tracerInduced).toEqual(
      expect.arrayContaining([expect.objectContaining({ program: "tracercrash", test: "TestUnderTracer" })]),
    );
    expect(json.flaky.filter((f) => f.program === "tracercrash")).toEqual([]);
  });

  test("a cgo-only main builds with cgo and runs", () => {
    expect(json.programs.find((p) => p.program === "cgomain")!.runs).toBeGreaterThan(0);
  });
});
