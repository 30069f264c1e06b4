// The pure parts of collect: outcome classification, the output tail, option parsing,
// trace paths, the progress line, and the structural trace check on real traces.

import { execa } from "execa";
import { copyFileSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkTraceFile,
  classifyOutcome,
  harnessStopOf,
  normalizeCollectOptions,
  parseDuration,
  parseProcsList,
  programPath,
  progressLine,
  runConfigs,
  runFiles,
  trimIncompleteBatch,
  type RunEvidence,
} from "../../src/collect/index.js";
import { runTimeoutMs } from "../../src/collect/collect.js";
import { workQueue } from "../../src/collect/pool.js";
import { outputTail } from "../../src/collect/tail.js";
import { UsageError } from "../../src/errors.js";
import { parsedTrace, scratch } from "./helpers.js";

const evidence = (over: Partial<RunEvidence>): RunEvidence => ({
  kind: "main",
  exitCode: 0,
  exitSignal: null,
  enforcement: "none",
  harnessStop: "return",
  output: "",
  ...over,
});

describe("classifyOutcome", () => {
  it("maps exit codes, crashes, deadlines and kills to outcomes", () => {
    expect(classifyOutcome(evidence({}))).toBe("ok");
    expect(classifyOutcome(evidence({ exitCode: 3, harnessStop: "exit" }))).toBe("exit-error");
    expect(classifyOutcome(evidence({ exitCode: 2, harnessStop: null, output: "goroutine 1\npanic: boom\n" }))).toBe(
      "panic",
    );
    expect(
      classifyOutcome(evidence({ exitCode: 2, harnessStop: null, output: "fatal error: concurrent map writes" })),
    ).toBe("panic");
    expect(classifyOutcome(evidence({ exitCode: 2, harnessStop: "panic", output: "" }))).toBe("panic");
    expect(classifyOutcome(evidence({ exitCode: 124, harnessStop: "deadline" }))).toBe("timeout");
    expect(classifyOutcome(evidence({ exitCode: 124, harnessStop: "sigterm", enforcement: "sigterm" }))).toBe(
      "timeout",
    );
    expect(
      classifyOutcome(evidence({ exitCode: null, exitSignal: "SIGKILL", harnessStop: null, enforcement: "sigkill" })),
    ).toBe("killed");
    expect(classifyOutcome(evidence({ exitCode: null, exitSignal: "SIGSEGV", harnessStop: null }))).toBe("killed");
  });

  it("recognises the testing package's timeout and failures for test programs", () => {
    const test = (over: Partial<RunEvidence>) => evidence({ kind: "test", harnessStop: null, ...over });
    expect(classifyOutcome(test({ exitCode: 2, output: "panic: test timed out after 1s\n\trunning tests:" }))).toBe(
      "timeout",
    );
    expect(classifyOutcome(test({ exitCode: 1, output: "--- FAIL: TestX\nFAIL" }))).toBe("exit-error");
    expect(classifyOutcome(test({ exitCode: 2, output: "panic: runtime error: index out of range" }))).toBe("panic");
    expect(classifyOutcome(test({ exitCode: null, exitSignal: "SIGTERM", enforcement: "sigterm" }))).toBe("killed");
  });
});

describe("outputTail", () => {
  it("keeps exactly the last bytes written and counts all of them", () => {
    const tail = outputTail(10);
    for (const piece of ["abc", "defgh", "ijklmnop", "qrstuvwxyz"]) tail.write(Buffer.from(piece));
    expect(tail.bytes().toString()).toBe("qrstuvwxyz");
    expect(tail.total).toBe(26);
    const small = outputTail(100);
    small.write(Buffer.from("hello"));
    expect(small.bytes().toString()).toBe("hello");
  });
});

describe("options", () => {
  it("parses durations and GOMAXPROCS lists, rejecting nonsense with a hint", () => {
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("10s")).toBe(10_000);
    expect(parseDuration("1.5m")).toBe(90_000);
    expect(parseDuration("3")).toBe(3000);
    expect(() => parseDuration("soon")).toThrow(UsageError);
    expect(parseProcsList("1,2, 4,2")).toEqual([1, 2, 4]);
    expect(() => parseProcsList("0")).toThrow(/invalid --procs "0"/);
    const error = (() => {
      try {
        parseProcsList("two");
      } catch (caught) {
        return caught as UsageError;
      }
      return null;
    })();
    expect(error?.hint).toMatch(/positive integers separated by commas/);
  });

  it("fills defaults and names configurations, adding the test count for tests only", () => {
    const options = normalizeCollectOptions({ paths: ["x"], procs: [1, 4], testCount: 3 });
    expect(options.mode).toEqual({ kind: "runs", runs: 5, race: false });
    // go test's own default until a plain run has ended by itself (configuredTimeoutMs derives the rest).
    expect(options.timeoutMs).toBe(600_000);
    expect(runConfigs(options, "main").map((c) => c.key)).toEqual(["procs-1", "procs-4"]);
    expect(runConfigs(options, "test").map((c) => c.key)).toEqual(["procs-1-count-3", "procs-4-count-3"]);
    expect(() => normalizeCollectOptions({ paths: [] })).toThrow(UsageError);
    expect(() => normalizeCollectOptions({ paths: ["x"], runs: 0 })).toThrow(/--runs/);
  });
});

describe("trace paths", () => {
  it("keeps program directories, replaces # and never escapes the traces directory", () => {
    expect(programPath("patterns/chan#TestLeak")).toBe("patterns/chan@TestLeak");
    expect(programPath("../x/a b")).toBe("_/x/a_b");
    expect(runFiles("/t", "a/b#TestX", "procs-2", 3)).toEqual({
      dir: "/t/a/b@TestX/procs-2",
      trace: "/t/a/b@TestX/procs-2/run-3.trace",
      dump: "/t/a/b@TestX/procs-2/run-3.dump",
    });
  });
});

describe("progressLine", () => {
  it("shows programs, runs, failures and the ETA", () => {
    const line = progressLine(
      { programsDone: 3, programsTotal: 10, runsDone: 14, runsTotal: 50, failures: 2, elapsedMs: 1000, etaMs: 42_000 },
      10,
    );
    expect(line).toBe("[###-------] programs 3/10  runs 14/50  failures 2  ETA 0:42");
    expect(
      progressLine(
        { programsDone: 0, programsTotal: 1, runsDone: 0, runsTotal: 5, failures: 0, elapsedMs: 0, etaMs: null },
        4,
      ),
    ).toContain("ETA --:--");
  });
});

describe("harnessStopOf", () => {
  it("reads the stop reason from a dump header", () => {
    expect(harnessStopOf("# schedlab-harness stop=deadline code=124\ngoroutine 1")).toBe("deadline");
    expect(harnessStopOf("goroutine 1 [running]:")).toBeNull();
  });
});

describe("checkTraceFile", () => {
  it("accepts a complete trace and flags it truncated when cut, empty or not a trace", async () => {
    const dir = scratch("tracefile");
    const prog = join(dir, "prog");
    await execa("mkdir", ["-p", prog]);
    writeFileSync(
      join(prog, "main.go"),
      'package main\n\nimport (\n\t"os"\n\t"runtime/trace"\n)\n\nfunc main() {\n' +
        "\tf, _ := os.Create(os.Args[1])\n\ttrace.Start(f)\n\tdone := make(chan bool)\n" +
        "\tgo func() { done <- true }()\n\t<-done\n\ttrace.Stop()\n\tf.Close()\n}\n",
    );
    await execa("go", ["build", "-o", join(dir, "bin"), "main.go"], { cwd: prog, env: { GO111MODULE: "off" } });
    const full = join(dir, "full.trace");
    await execa(join(dir, "bin"), [full]);
    const complete = checkTraceFile(full);
    expect(complete).toMatchObject({ complete: true, problem: null });
    expect(complete.generations).toBeGreaterThanOrEqual(1);
    expect(complete.bytes).toBe(readFileSync(full).length);

    const cut = join(dir, "cut.trace");
    copyFileSync(full, cut);
    truncateSync(cut, Math.floor(complete.bytes / 2));
    expect(checkTraceFile(cut).complete).toBe(false);
    expect(checkTraceFile(cut).problem).toMatch(/ends inside a batch|no end marker/);

    // Cut mid-batch: nothing parses, and with no complete generation there is nothing to keep.
    expect(trimIncompleteBatch(cut)).toBe(0);

    writeFileSync(join(dir, "empty.trace"), "");
    expect(checkTraceFile(join(dir, "empty.trace"))).toMatchObject({ complete: false, problem: "the trace is empty" });
    writeFileSync(join(dir, "junk.trace"), "this is not a trace file at all");
    expect(checkTraceFile(join(dir, "junk.trace"))).toMatchObject({ complete: false, problem: "no Go trace header" });
  });
});

describe("trimIncompleteBatch", () => {
  it("cuts a trace killed mid-batch back to its last complete generation, which parses", async () => {
    const dir = scratch("trim");
    const prog = join(dir, "prog");
    await execa("mkdir", ["-p", prog]);
    // Runs 1.3 s under the tracer, so the runtime completes at least one generation (about one a second).
    writeFileSync(
      join(prog, "main.go"),
      'package main\n\nimport (\n\t"os"\n\t"runtime/trace"\n\t"time"\n)\n\nfunc main() {\n' +
        "\tf, _ := os.Create(os.Args[1])\n\ttrace.Start(f)\n\tfor i := 0; i < 13; i++ {\n" +
        "\t\tdone := make(chan bool)\n\t\tgo func() { time.Sleep(100 * time.Millisecond); done <- true }()\n" +
        "\t\t<-done\n\t}\n\ttrace.Stop()\n\tf.Close()\n}\n",
    );
    await execa("go", ["build", "-o", join(dir, "bin"), "main.go"], { cwd: prog, env: { GO111MODULE: "off" } });
    const full = join(dir, "full.trace");
    await execa(join(dir, "bin"), [full]);
    const complete = checkTraceFile(full);
    expect(complete.generations).toBeGreaterThanOrEqual(2);
    const cut = join(dir, "cut.trace");
    copyFileSync(full, cut);
    truncateSync(cut, complete.bytes - 3); // inside the last batch, before the final marker
    expect((await parsedTrace(cut)).exitCode).not.toBe(0);
    const removed = trimIncompleteBatch(cut);
    expect(removed).toBeGreaterThan(0);
    const trimmed = checkTraceFile(cut);
    expect(trimmed.complete).toBe(true);
    expect(trimmed.generations).toBe(complete.generations! - 1);
    expect((await parsedTrace(cut)).exitCode).toBe(0);
    expect(trimIncompleteBatch(full)).toBe(0);
  });
});

describe("workQueue", () => {
  it("runs tasks on a fixed number of workers, including tasks enqueued by tasks", async () => {
    const order: string[] = [];
    let running = 0;
    let peak = 0;
    const task = (name: string, then?: () => void) => async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(name);
      then?.();
      running--;
    };
    const queue = workQueue(2);
    queue.push(
      task("a", () => queue.pushFront(task("a1"), task("a2"))),
      task("b"),
      task("c"),
      task("d"),
    );
    await queue.drain();
    expect(peak).toBe(2);
    expect(order.sort()).toEqual(["a", "a1", "a2", "b", "c", "d"]);
  });

  it("stops at the first failing task and rethrows its error after the running ones finish", async () => {
    const ran: string[] = [];
    const failures: unknown[] = [];
    const queue = workQueue(1, undefined, (error) => failures.push(error));
    queue.push(
      async () => {
        ran.push("first");
      },
      async () => {
        throw new Error("disk full");
      },
      async () => {
        ran.push("never");
      },
    );
    await expect(queue.drain()).rejects.toThrow("disk full");
    expect(ran).toEqual(["first"]);
    expect(failures).toHaveLength(1);
  });
});

describe("runTimeoutMs", () => {
  it("lets a manifest shorten the deadline but never lengthen it", () => {
    expect(runTimeoutMs(10_000, undefined)).toBe(10_000);
    expect(runTimeoutMs(10_000, 2_000)).toBe(2_000);
    expect(runTimeoutMs(1_000, 2_000)).toBe(1_000);
  });
});
