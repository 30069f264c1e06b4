// collect follows go test conventions: package patterns resolved by go list, -run/-skip
// selecting what go test selects (Example functions included), build tags in discovery and
// builds, --race/--count/--cpu, injected code that builds at `go 1.12`, and build failures
// reported by collect's exit code and by leaks. Real go commands on the modules in
// test/fixtures/gotest/.

import { execa } from "execa";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { discoverPrograms, isPackagePattern, resolvePackagePattern } from "../../src/corpus/index.js";
import { UsageError } from "../../src/errors.js";
import {
  buildProgram,
  collect,
  EVERY_BUILD_FAILED_EXIT_CODE,
  goflagsWithTags,
  normalizeCollectOptions,
  parseTags,
  runConfigs,
  tagsOfGoflags,
} from "../../src/collect/index.js";
import { goToolchain } from "../../src/go/index.js";
import { analyseLeaks, formatFindings } from "../../src/leaks/index.js";
import { openDatabase } from "../../src/store/index.js";
import { runCli } from "../helpers/cli.js";
import { scratch } from "./helpers.js";

const GOTEST = fileURLToPath(new URL("../fixtures/gotest/", import.meta.url));
const MULTI = join(GOTEST, "multi");
const OLD = join(GOTEST, "old");
const BROKEN = join(GOTEST, "broken");

/** The top-level tests and examples `go test -v ARGS ./...` runs in MULTI, as "pkg#Name". */
async function goTestRuns(args: readonly string[]): Promise<string[]> {
  const result = await execa("go", ["test", "-count=1", "-v", ...args, "./..."], {
    cwd: MULTI,
    reject: false,
    all: true,
  });
  const names: string[] = [];
  let pkg = "";
  // -v prints "=== RUN   Name" per test; the package of a block is on its "ok  example.com/multi/PKG" line.
  const pending: string[] = [];
  for (const line of (result.all ?? "").split("\n")) {
    const run = /^=== RUN\s+([^/\s]+)$/.exec(line);
    if (run !== null) pending.push(run[1]!);
    const done = /^(?:ok|FAIL)\s+example\.com\/multi\/(\S+)/.exec(line);
    if (done !== null) {
      pkg = done[1]!;
      names.push(...pending.map((name) => `${pkg}#${name}`));
      pending.length = 0;
    }
  }
  return names.sort();
}

async function splitNames(options: { tags?: string[]; run?: string; skip?: string }): Promise<string[]> {
  const { programs } = await discoverPrograms(["./..."], { cwd: MULTI, splitTests: true, ...options });
  // go test runs tests only: main packages are not compared.
  return programs
    .filter((p) => p.kind === "test")
    .map((p) => p.name)
    .sort();
}

describe("go test's options, normalised", () => {
  it("tells patterns from directories", () => {
    expect(
      ["./...", "./pkg/...", "example.com/multi/beta", "./alpha", "alpha", "/abs/dir"].map((p) =>
        isPackagePattern(p, MULTI),
      ),
    ).toEqual([true, true, true, false, false, false]);
  });

  it("merges --tags into GOFLAGS' own -tags, and reads them back", () => {
    expect(parseTags(["integration,linux", " integration "])).toEqual(["integration", "linux"]);
    expect(() => parseTags(["bad tag"])).toThrow(UsageError);
    expect(goflagsWithTags("-mod=mod -tags=a,b", ["b", "c"])).toBe("-mod=mod -tags=a,b,c");
    expect(goflagsWithTags("", ["x"])).toBe("-tags=x");
    expect(tagsOfGoflags("-mod=mod -tags=a,b")).toEqual(["a", "b"]);
  });

  it("keys --race runs as race configurations and carries --run/--skip to test runs only", () => {
    const opts = normalizeCollectOptions({
      paths: [MULTI],
      procs: [1, 2],
      race: true,
      run: "TestA",
      skip: "TestB",
      testCount: 3,
    });
    expect(runConfigs(opts, "test")).toEqual([
      { key: "procs-1-race-count-3", strategy: "race", procs: 1, testCount: 3, testRun: "TestA", testSkip: "TestB" },
      { key: "procs-2-race-count-3", strategy: "race", procs: 2, testCount: 3, testRun: "TestA", testSkip: "TestB" },
    ]);
    expect(runConfigs(opts, "main").map((c) => c.key)).toEqual(["procs-1-race", "procs-2-race"]);
  });

  it("accepts go test's spellings --count and --cpu, not together with the long ones", async () => {
    const both = await runCli(["collect", MULTI, "--cpu", "1", "--procs", "2"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--cpu is --procs");
    const counts = await runCli(["collect", MULTI, "--count", "1", "--test-count", "2"]);
    expect(counts.code).toBe(2);
  });
});

describe("package patterns", () => {
  it("resolves ./..., ./pkg/... and an import path with go list, relative to the directory given", async () => {
    const all = await discoverPrograms(["./..."], { cwd: MULTI });
    expect(all.programs.map((p) => `${p.name}:${p.kind}`)).toEqual(["alpha:test", "beta:test", "cmd/hello:main"]);
    expect(all.programs[0]!.root).toBe(MULTI);
    const some = await discoverPrograms(["./cmd/...", "example.com/multi/beta"], { cwd: MULTI });
    expect(some.programs.map((p) => p.name)).toEqual(["beta", "hello"]);
    const fromInside = await discoverPrograms(["./..."], { cwd: join(MULTI, "alpha") });
    expect(fromInside.programs.map((p) => p.name)).toEqual(["alpha"]);
  });

  it("honours build tags: a package that exists only with a tag is matched only with it", async () => {
    expect((await resolvePackagePattern("./...", MULTI)).dirs).not.toContain(join(MULTI, "tagged"));
    expect((await resolvePackagePattern("./...", MULTI, ["integration"])).dirs).toContain(join(MULTI, "tagged"));
  });

  it("makes a pattern that matches nothing a usage error with a hint", async () => {
    const error = await discoverPrograms(["./nothing/..."], { cwd: MULTI }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain("the package pattern ./nothing/... matches no Go package");
    expect((error as UsageError).hint).toContain("go list PATTERN");
  });
});

describe("--run, --skip and --tags select what go test selects", () => {
  const cases: { args: string[]; options: { tags?: string[]; run?: string; skip?: string } }[] = [
    { args: [], options: {} },
    { args: ["-tags", "integration"], options: { tags: ["integration"] } },
    {
      args: ["-tags", "integration", "-run", "Test(AlphaT|Beta)|Example"],
      options: { tags: ["integration"], run: "Test(AlphaT|Beta)|Example" },
    },
    { args: ["-run", "Alpha", "-skip", "One"], options: { run: "Alpha", skip: "One" } },
    // A -skip with a subtest element skips subtests only; the top-level test still runs.
    { args: ["-run", "Alpha", "-skip", "TestAlphaTwo/sub"], options: { run: "Alpha", skip: "TestAlphaTwo/sub" } },
  ];
  for (const { args, options } of cases) {
    it(`go test ${args.join(" ") || "(no flags)"}`, async () => {
      const expected = await goTestRuns(args);
      expect(expected.length).toBeGreaterThan(0);
      expect(await splitNames(options)).toEqual(expected);
    });
  }

  it("lists Example functions with an output comment only, as go test runs them", async () => {
    const names = await splitNames({});
    expect(names).toContain("alpha#ExampleAdd");
    expect(names).not.toContain("alpha#ExampleAdd_unrun");
  });

  it("rejects an invalid regexp and a --run that selects nothing, with hints", async () => {
    const bad = await discoverPrograms(["./..."], { cwd: MULTI, run: "(" }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(UsageError);
    expect((bad as UsageError).message).toContain('invalid regexp for -run element "("');
    const none = await discoverPrograms(["./..."], { cwd: MULTI, run: "Nothing" }).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(UsageError);
    expect((none as UsageError).message).toContain("matches --run Nothing");
  });
});

describe("collecting with go test's options", () => {
  it("runs a split Example and a tagged test, built with -race, --count and --cpu applied", async () => {
    const dir = scratch("gotest-race");
    const result = await collect({
      paths: [join(MULTI, "alpha"), join(MULTI, "beta")],
      splitTests: true,
      tags: ["integration"],
      run: "ExampleAdd|TestBetaIntegration",
      race: true,
      testCount: 2,
      procs: [1],
      runs: 1,
      timeoutMs: 60_000,
      db: join(dir, "s.db"),
      traces: join(dir, "t"),
    });
    expect(result.programs.map((p) => [p.name, p.build, p.runs.map((r) => `${r.config}:${r.outcome}`)])).toEqual([
      ["alpha#ExampleAdd", "ok", ["procs-1-race-count-2:ok"]],
      ["beta#TestBetaIntegration", "ok", ["procs-1-race-count-2:ok"]],
    ]);
    expect(result.programs.every((p) => p.runs.every((r) => r.strategy === "race"))).toBe(true);
  });

  it("refuses --race with --budget, which explores -race itself", async () => {
    // @ts-expect-error -- the type refuses the mix; a caller without types gets a UsageError.
    await expect(collect({ paths: [MULTI], race: true, budgetMs: 1000 })).rejects.toThrow(
      "--race goes without --budget",
    );
  });
});

describe("a module whose go.mod says go 1.12", () => {
  it("builds and runs the harness and both peers", async () => {
    const dir = scratch("gotest-old");
    const result = await collect({
      paths: [OLD],
      procs: [1],
      runs: 1,
      timeoutMs: 60_000,
      peers: ["goleak", "leakprofile"],
      db: join(dir, "s.db"),
      traces: join(dir, "t"),
    });
    expect(result.programs.map((p) => [p.name, p.build, p.buildOutput ?? "", p.runs.map((r) => r.outcome)])).toEqual([
      ["cmd/oldmain", "ok", "", ["ok"]],
      ["lib", "ok", "", ["ok"]],
    ]);
  });

  it("builds the perturbation overlay (on the harness) and -race, with the peers", async () => {
    const go = await goToolchain(OLD);
    const { programs } = await discoverPrograms([OLD]);
    for (const program of programs) {
      for (const strategy of ["perturb", "race"] as const) {
        const target = {
          dir: program.dir,
          kind: program.kind,
          goFiles: program.goFiles,
          testFiles: program.testFiles,
          strategy,
          peers: ["goleak", "leakprofile"] as const,
        };
        const build = await buildProgram(target, go, scratch(`gotest-old-${strategy}`));
        expect([program.name, strategy, build.status, build.output]).toEqual([program.name, strategy, "ok", ""]);
      }
    }
  });

  it("is hunted with --budget: every run it gets to builds and runs", async () => {
    const dir = scratch("gotest-old-budget");
    const result = await collect({
      paths: [OLD],
      procs: [1],
      budgetMs: 1500,
      exhaustBudget: true,
      timeoutMs: 60_000,
      peers: ["leakprofile"],
      db: join(dir, "s.db"),
      traces: join(dir, "t"),
    });
    for (const program of result.programs) {
      expect(program.exploration?.status).toBe("exhausted");
      expect(program.exploration?.unavailable).toEqual([]);
      expect(program.runs.length).toBeGreaterThan(0);
      expect(program.runs.filter((r) => r.outcome !== "ok")).toEqual([]);
    }
  });
});

describe("build failures", () => {
  it("collect exits non-zero when nothing built, and leaks lists the compiler output instead of asking for ingest", async () => {
    const dir = scratch("gotest-broken");
    const db = join(dir, "s.db");
    const result = await runCli([
      "collect",
      BROKEN,
      "--runs",
      "1",
      "--procs",
      "1",
      "--db",
      db,
      "--traces",
      join(dir, "t"),
    ]);
    expect(result.code).toBe(EVERY_BUILD_FAILED_EXIT_CODE);
    expect(result.stderr).toContain(
      "schedlab: 1 of 1 program(s) failed to build: bad; their runs are recorded as build-error",
    );
    const store = openDatabase(db);
    try {
      const analysis = await analyseLeaks(store, { save: false });
      expect(analysis.withoutRuns).toEqual([]);
      expect(analysis.buildErrors?.map((b) => b.program)).toEqual(["bad"]);
      const text = formatFindings(analysis);
      expect(text).toContain("Not analysed for leaks: 1 program did not build");
      expect(text).toMatch(/bad\.go:4:6: declared and not used: unused/);
      expect(text).not.toContain("run schedlab ingest first");
    } finally {
      store.close();
    }
  });
});

describe("toolchains", () => {
  it("reads the selected toolchain and builds with its own go binary", async () => {
    const go = await goToolchain(MULTI);
    const { stdout } = await execa("go", ["env", "GOVERSION", "GOROOT"], { cwd: MULTI });
    expect([go.version, go.goroot]).toEqual(stdout.trim().split("\n"));
    expect(go.goBinary).toBe(join(go.goroot, "bin", "go"));
  });
});
