// End to end: `schedlab collect --json` over the fixture tree with the real toolchain,
// then every outcome, dump, database row and trace checked against what the programs do.

import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_HANG_EXIT_CODE,
  HARNESS_TIMEOUT_EXIT_CODE,
  type ProgramSummary,
  type RunSummary,
} from "../../src/collect/index.js";
import { runCli } from "../helpers/cli.js";
import { parsedTrace, PROGRAMS, scratch } from "./helpers.js";

let dir: string;
let programs: Map<string, ProgramSummary>;
let db: Database.Database;

function onlyRun(name: string): RunSummary {
  const program = programs.get(name);
  expect(program, `program ${name}`).toBeDefined();
  expect(program!.runs).toHaveLength(1);
  return program!.runs[0];
}

beforeAll(async () => {
  dir = scratch("e2e");
  const result = await runCli([
    "collect",
    PROGRAMS,
    "--runs",
    "1",
    "--timeout",
    "3s",
    "--procs",
    "2",
    "--db",
    join(dir, "s.db"),
    "--traces",
    join(dir, "traces"),
    "--json",
  ]);
  // The fixtures that do not build are named in one summary line; the others ran, so exit 0.
  expect(result.stderr).toBe(
    "schedlab: 4 of 15 program(s) failed to build: compile-error, modtree/cmd/broken, syntax-error, " +
      "syntax-error-test; their runs are recorded as build-error.\n",
  );
  expect(result.code).toBe(0);
  const parsed = JSON.parse(result.stdout) as { programs: ProgramSummary[] };
  programs = new Map(parsed.programs.map((p) => [p.name, p]));
  db = new Database(join(dir, "s.db"), { readonly: true });
});

describe("schedlab collect over the fixture tree", () => {
  it("finds every main and test package, and nothing in hidden, vendor or testdata dirs", () => {
    expect([...programs.keys()]).toEqual([
      "clean",
      "compile-error",
      "flood",
      "goroutine-panic",
      "leak-select",
      "modtree/cmd/broken",
      "modtree/cmd/hello",
      "modtree/tools/hello",
      "modtree/work",
      "mutex-deadlock",
      "os-exit",
      "syntax-error",
      "syntax-error-test",
      "test-leak",
      "waitgroup",
    ]);
    expect(programs.get("test-leak")!.kind).toBe("test");
    expect(programs.get("modtree/work")!.kind).toBe("test");
    expect(programs.get("clean")!.kind).toBe("main");
  });

  it("keeps to the --json contract: only the documented keys, every trace path exists", () => {
    for (const program of programs.values()) {
      for (const key of Object.keys(program)) expect(["name", "kind", "build", "buildOutput", "runs"]).toContain(key);
      for (const run of program.runs) {
        for (const key of Object.keys(run))
          expect([
            "id",
            "index",
            "config",
            "outcome",
            "exitCode",
            "wallMs",
            "trace",
            "dump",
            "truncated",
            "stopReason",
          ]).toContain(key);
        expect(
          db.prepare("SELECT config, run_index AS idx, strategy, seed FROM runs WHERE id = ?").get(run.id),
        ).toEqual({ config: run.config, idx: run.index, strategy: "plain", seed: null });
        expect(run.config).toBe("procs-2");
        expect(run.trace).not.toBeNull();
        expect(existsSync(run.trace!)).toBe(true);
        expect(run.trace).toBe(join(dir, "traces", program.name, "procs-2", `run-${run.index}.trace`));
      }
    }
  });

  it("records a clean program as ok with a complete trace of its workers", async () => {
    const run = onlyRun("clean");
    expect(run).toMatchObject({ outcome: "ok", exitCode: 0 });
    expect(run.truncated).toBeUndefined();
    const parsed = await parsedTrace(run.trace!);
    expect(parsed.exitCode).toBe(0);
    expect(parsed.output).toContain("main.worker");
    // The decoder contract: the user's main appears as main.schedlabUserMain.
    expect(parsed.output).toContain("main.schedlabUserMain");
  });

  it("records goroutines left blocked in select when main returns, in the dump", () => {
    const run = onlyRun("leak-select");
    expect(run.outcome).toBe("ok");
    const dump = readFileSync(run.dump!, "utf8");
    expect(dump.split("\n")[0]).toBe("# schedlab-harness stop=return code=0");
    // The run agent's end profile (taken before the dump) had the GC mark them leaked; the dump shows the mark.
    expect(dump.match(/\[select \(leaked\)\]:\nmain\.waiter/g)).toHaveLength(3);
  });

  it("stores the manifest of a program that has one, and null for one that has none", () => {
    const rows = db
      .prepare("SELECT name, manifest FROM programs WHERE name IN ('leak-select', 'clean') ORDER BY name")
      .all() as { name: string; manifest: string | null }[];
    expect(rows[0]).toEqual({ name: "clean", manifest: null });
    expect(JSON.parse(rows[1].manifest!)).toMatchObject({ outcome: "leak", pattern: "select-without-ready-case" });
  });

  it("stops a mutex deadlock at the deadline (or as proven hung): it hangs under the tracer instead of dying", async () => {
    const run = onlyRun("mutex-deadlock");
    // The run agent proves this hang only when the 8-byte mutex's tiny allocation block holds
    // nothing else alive (docs/collect.md, "The run agent"): then it stops the run as hung.
    expect(run.outcome).toBe("timeout");
    expect([HARNESS_TIMEOUT_EXIT_CODE, AGENT_HANG_EXIT_CODE]).toContain(run.exitCode);
    const stderr = (
      db
        .prepare(
          "SELECT stderr_tail AS s FROM runs r JOIN programs p ON p.id = r.program_id WHERE p.name = 'mutex-deadlock'",
        )
        .get() as { s: string }
    ).s;
    expect(stderr).not.toContain("all goroutines are asleep");
    const dump = readFileSync(run.dump!, "utf8");
    expect(dump.split("\n")[0]).toMatch(
      run.exitCode === AGENT_HANG_EXIT_CODE
        ? /^# schedlab-agent stop=hang code=125 wait="sync.Mutex.Lock" after=\d+ms$/
        : /^# schedlab-harness stop=deadline code=124$/,
    );
    expect(dump).toMatch(/\[sync\.Mutex\.Lock( \(leaked\))?\]/);
    expect(dump).toContain("main.schedlabUserMain.func1()");
    expect((await parsedTrace(run.trace!)).exitCode).toBe(0);
    expect(run.truncated).toBeUndefined();
  });

  it("stops a WaitGroup that never reaches zero at the deadline", async () => {
    const run = onlyRun("waitgroup");
    expect(run.outcome).toBe("timeout");
    expect(readFileSync(run.dump!, "utf8")).toContain("sync.(*WaitGroup).Wait");
    expect((await parsedTrace(run.trace!)).exitCode).toBe(0);
  });

  it("records a panic in a goroutine, keeps the traceback as the dump and marks the trace truncated", async () => {
    const run = onlyRun("goroutine-panic");
    expect(run).toMatchObject({ outcome: "panic", exitCode: 2, truncated: true });
    expect(readFileSync(run.dump!, "utf8")).toContain("assignment to entry in nil map");
    // What was flushed before the crash still parses.
    expect((await parsedTrace(run.trace!)).exitCode).toBe(0);
    const row = db
      .prepare("SELECT truncated FROM runs r JOIN programs p ON p.id = r.program_id WHERE p.name = 'goroutine-panic'")
      .get() as { truncated: number };
    expect(row.truncated).toBe(1);
  });

  it("records a compile error with the compiler output naming the user's file, and goes on", () => {
    const program = programs.get("compile-error")!;
    expect(program.build).toBe("error");
    expect(program.runs).toEqual([]);
    expect(program.buildOutput).toContain(
      join(PROGRAMS, "compile-error", "main.go") + ":5:2: undefined: undefinedFunction",
    );
    const outcomes = db
      .prepare("SELECT outcome FROM runs r JOIN programs p ON p.id = r.program_id WHERE p.name = 'compile-error'")
      .all();
    expect(outcomes).toEqual([{ outcome: "build-error" }]);
  });

  it("records a package that does not parse as a build error with the compiler's first lines, main and test alike", () => {
    const main = programs.get("syntax-error")!;
    expect(main).toMatchObject({ kind: "main", build: "error", runs: [] });
    expect(main.buildOutput).toMatch(
      /^# .*syntax-error\n\.\/main\.go:7:\d+: syntax error: unexpected newline in argument list/,
    );
    const test = programs.get("syntax-error-test")!;
    expect(test).toMatchObject({ kind: "test", build: "error", runs: [] });
    expect(test.buildOutput).toMatch(/broken_test\.go:7:\d+: missing condition in if statement/);
    const outcomes = db
      .prepare(
        "SELECT p.name, r.outcome FROM runs r JOIN programs p ON p.id = r.program_id WHERE p.name LIKE 'syntax-error%' ORDER BY p.name",
      )
      .all();
    expect(outcomes).toEqual([
      { name: "syntax-error", outcome: "build-error" },
      { name: "syntax-error-test", outcome: "build-error" },
    ]);
  });

  it("lets a program write 20 MB to stdout and still finish cleanly", async () => {
    const run = onlyRun("flood");
    expect(run).toMatchObject({ outcome: "ok", exitCode: 0 });
    expect((await parsedTrace(run.trace!)).exitCode).toBe(0);
  });

  it("stops the trace when user code calls os.Exit", async () => {
    const run = onlyRun("os-exit");
    expect(run).toMatchObject({ outcome: "exit-error", exitCode: 3 });
    expect(run.truncated).toBeUndefined();
    expect(readFileSync(run.dump!, "utf8").split("\n")[0]).toBe("# schedlab-harness stop=exit code=3");
    expect((await parsedTrace(run.trace!)).exitCode).toBe(0);
  });

  it("runs a test package whose test leaks a goroutine, with a complete trace of it", async () => {
    const run = onlyRun("test-leak");
    expect(run.outcome).toBe("ok");
    expect(run.truncated).toBeUndefined();
    const parsed = await parsedTrace(run.trace!);
    expect(parsed.exitCode).toBe(0);
    expect(parsed.output).toContain("TestLeaksReceiver");
    const row = db
      .prepare(
        "SELECT stderr_tail AS tail FROM runs r JOIN programs p ON p.id = r.program_id WHERE p.name = 'test-leak'",
      )
      .get() as { tail: string };
    expect(row.tail).toContain("--- PASS: TestLeaksReceiver");
  });

  it("builds packages of a Go module (main and tests) in module mode, a broken one not stopping the rest", () => {
    expect(onlyRun("modtree/cmd/hello").outcome).toBe("ok");
    expect(onlyRun("modtree/tools/hello").outcome).toBe("ok");
    expect(programs.get("modtree/cmd/broken")!.build).toBe("error");
    expect(programs.get("modtree/cmd/broken")!.buildOutput).toContain("undefined: notDeclared");
    expect(onlyRun("modtree/work").outcome).toBe("ok");
  });

  it("records a build row per program and config, the Go version and a scrubbed environment", () => {
    const builds = db.prepare("SELECT count(*) AS n FROM builds WHERE config = 'procs-2'").get() as { n: number };
    expect(builds.n).toBe(programs.size);
    const row = db
      .prepare(
        "SELECT env, go_version AS goVersion, trace_sha256 AS sha, trace_bytes AS bytes, trace_path AS path " +
          "FROM runs r JOIN programs p ON p.id = r.program_id WHERE p.name = 'clean'",
      )
      .get() as { env: string; goVersion: string; sha: string; bytes: number; path: string };
    const env = JSON.parse(row.env) as Record<string, string>;
    expect(Object.keys(env).sort()).toEqual([
      "GOCACHE",
      "GOMAXPROCS",
      "GOPATH",
      "GOROOT",
      "GOTRACEBACK",
      "HOME",
      "PATH",
      "SCHEDLAB_AGENT_PROFILE",
      "SCHEDLAB_AGENT_WATCH",
      "SCHEDLAB_DEADLINE_MS",
      "SCHEDLAB_DUMP",
      "SCHEDLAB_TRACE",
      "TMPDIR",
    ]);
    expect(env.GOMAXPROCS).toBe("2");
    expect(row.goVersion).toMatch(/^go1\.\d+/);
    expect(row.sha).toMatch(/^[0-9a-f]{64}$/);
    expect(row.sha).toBe(createHash("sha256").update(readFileSync(row.path)).digest("hex"));
    expect(row.bytes).toBe(readFileSync(row.path).length);
  });

  it("leaves no partial files behind, and every trace on disk passes go tool trace", async () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const entry of readdirSync(d, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(d, entry.name));
        else files.push(join(d, entry.name));
      }
    };
    walk(join(dir, "traces"));
    expect(files.filter((f) => f.endsWith(".partial"))).toEqual([]);
    const traces = files.filter((f) => f.endsWith(".trace"));
    expect(traces).toHaveLength(11);
    const codes = await Promise.all(traces.map(async (trace) => [trace, (await parsedTrace(trace)).exitCode] as const));
    expect(codes.filter(([, code]) => code !== 0)).toEqual([]);
  });
});
