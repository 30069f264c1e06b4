// parseFailures on real `go test -v` output of the small failing packages under
// test/fixtures/failures (generated here by the Go toolchain, never pasted), and in the
// form collect keeps for a test run (stderr, "--- stdout (tail) ---", stdout); then collect's
// output digest and untraced rerun on the packages whose failures a tail loses or a tracer causes.

import Database from "better-sqlite3";
import { execa } from "execa";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import {
  collect,
  parseFailures,
  TRACER_CRASH_NOTE,
  TRACER_GOROUTINE_FUNCTION,
  withUntracedRerun,
} from "../../src/collect/index.js";
import { scratch } from "./helpers.js";

const FAILURES = fileURLToPath(new URL("../fixtures/failures/", import.meta.url));
const RACY = fileURLToPath(new URL("../fixtures/collect/explore/racy-counter/", import.meta.url));
const outputs = new Map<string, string>();

/** `go test -v ./pkg`'s combined output (what a terminal shows). */
async function goTestV(pkg: string, ...flags: string[]): Promise<string> {
  const result = await execa("go", ["test", "-v", "-count=1", ...flags, `./${pkg}`], {
    cwd: FAILURES,
    reject: false,
    all: true,
    env: { GOFLAGS: "" },
  });
  return result.all ?? "";
}

beforeAll(async () => {
  const dir = scratch("failures");
  const runs: [string, Promise<string>][] = [
    ["errorf", goTestV("errorf")],
    ["subfatal", goTestV("subfatal")],
    ["panics", goTestV("panics")],
    ["gopanic", goTestV("gopanic")],
    ["logafter", goTestV("logafter")],
    ["tracerscan-traced", goTestV("tracerscan", `-trace=${join(dir, "scan.trace")}`)],
    ["tracerscan", goTestV("tracerscan")],
    // A data race under -race: the testing package fails the test for it (GOPATH mode: the probe has no go.mod).
    [
      "racy",
      execa("go", ["test", "-race", "-v", "-count=1", "."], {
        cwd: RACY,
        reject: false,
        all: true,
        env: { GOFLAGS: "", GO111MODULE: "off" },
      }).then((r) => r.all ?? ""),
    ],
  ];
  for (const [name, output] of runs) outputs.set(name, await output);
}, 120_000);

describe("parseFailures", () => {
  it("reads a t.Errorf failure with its continuation line, and not the passing test", () => {
    expect(outputs.get("errorf")).toContain("--- FAIL: TestSum");
    expect(parseFailures(outputs.get("errorf")!)).toEqual([
      {
        test: "TestSum",
        kind: "fail",
        message: "errorf_test.go:10: sum = 2, want 3\n    second line of the message",
        tracerInduced: false,
      },
    ]);
  });

  it("names the subtest that called t.Fatal, not its parent", () => {
    expect(parseFailures(outputs.get("subfatal")!)).toEqual([
      { test: "TestPool/sub", kind: "fail", message: "pool_test.go:9: pool drained", tracerInduced: false },
    ]);
  });

  it("reads a panic in a test: the panic line and the first user frames, the test from its --- FAIL line and traceback", () => {
    expect(parseFailures(outputs.get("panics")!)).toEqual([
      {
        test: "TestLookup",
        kind: "panic",
        message:
          "panic: no entry for alpha\n    panics.lookup panics_test.go:9\n    panics.TestLookup panics_test.go:15",
        tracerInduced: false,
      },
    ]);
  });

  it("names the test whose goroutine panicked from the traceback alone", () => {
    const output = outputs.get("gopanic")!;
    expect(output, output).toContain("panic: runtime error");
    expect(parseFailures(output)).toEqual([
      {
        test: "TestWorker",
        kind: "panic",
        message:
          "panic: runtime error: index out of range [3] with length 0\n    gopanic.TestWorker.func1 gopanic_test.go:16",
        tracerInduced: false,
      },
    ]);
  });

  it("recognises the panic of a goroutine that logs after its test has completed", () => {
    const [failure, ...rest] = parseFailures(outputs.get("logafter")!);
    expect(rest).toEqual([]);
    expect(failure).toMatchObject({ test: "TestStart", kind: "panic", tracerInduced: false });
    expect(failure!.message.split("\n")[0]).toBe("panic: Log in goroutine after TestStart has completed: late result");
    expect(failure!.message).toContain("logafter.TestStart.func1 logafter_test.go:18");
  });

  it("marks a leak check that fails only on the tracer's goroutine as tracer-induced, and says how to fix it", () => {
    // The package passes without the tracer.
    expect(outputs.get("tracerscan")).toContain("--- PASS: TestNoLeakedGoroutines");
    expect(parseFailures(outputs.get("tracerscan")!)).toEqual([]);
    expect(outputs.get("tracerscan-traced")).toContain(TRACER_GOROUTINE_FUNCTION);
    const [failure, ...rest] = parseFailures(outputs.get("tracerscan-traced")!);
    expect(rest).toEqual([]);
    expect(failure).toMatchObject({ test: "TestNoLeakedGoroutines", kind: "fail", tracerInduced: true });
    expect(failure!.message).toMatch(/^scan_test\.go:\d+: found unexpected goroutines:\n/);
    expect(failure!.message).toContain(`goleak.IgnoreAnyFunction("${TRACER_GOROUTINE_FUNCTION}")`);
  });

  it("keeps a real leak report that also lists the tracer as a failure", () => {
    const traced = outputs.get("tracerscan-traced")!;
    const withUserGoroutine = traced.replace(
      /(found unexpected goroutines:\n)/,
      "$1        goroutine 9 [chan receive]:\n        schedlab.test/failures/tracerscan.worker()\n        \t/x/scan_test.go:40 +0x1\n        \n",
    );
    expect(parseFailures(withUserGoroutine)[0]).toMatchObject({ test: "TestNoLeakedGoroutines", tracerInduced: false });
  });

  it("counts a leak check that also caught the run agent's probe running as tracer-induced", () => {
    // As a hand-written check printed it in a hunt of go-programs/realcode/goleakcheck: the probe
    // was taking the leak profile (runnable in runtime.GC) when the check looked.
    const traced = outputs.get("tracerscan-traced")!;
    const withProbe = traced.replace(
      /(found unexpected goroutines:\n)/,
      "$1        goroutine 8 [runnable]:\n        runtime.GC()\n        \t/usr/local/go/src/runtime/mgc.go:580 +0x8b\n" +
        "        schedlab.test/failures/tracerscan.schedlabAgentProbe()\n        \t/x/zz_schedlab_agent_test.go:118 +0x89\n" +
        "        created by time.goFunc\n        \t/usr/local/go/src/time/sleep.go:215 +0x2d\n        \n",
    );
    expect(withProbe).toContain("schedlabAgentProbe");
    expect(parseFailures(withProbe)[0]).toMatchObject({ test: "TestNoLeakedGoroutines", tracerInduced: true });
  });

  it("leaves out the failure the testing package adds for a data race: that is the race class", () => {
    expect(outputs.get("racy")).toMatch(/testing\.go:\d+: race detected during execution of test/);
    expect(outputs.get("racy")).toContain("--- FAIL: TestCountVisits");
    expect(parseFailures(outputs.get("racy")!)).toEqual([]);
  });

  it("reads collect's stored form of a test run (stderr first, then stdout) the same way", async () => {
    const dir = scratch("failures-bin");
    const binary = join(dir, "panics.test");
    await execa("go", ["test", "-c", "-o", binary, "./panics"], { cwd: FAILURES });
    const run = await execa(binary, ["-test.v=true"], { cwd: join(FAILURES, "panics"), reject: false });
    const stored = `${run.stderr}\n--- stdout (tail) ---\n${run.stdout}`;
    expect(stored.indexOf("panic:")).toBeLessThan(stored.indexOf("--- FAIL: TestLookup"));
    expect(parseFailures(stored)).toEqual(parseFailures(outputs.get("panics")!));
  }, 60_000);

  it("reads a main program's panic without a test, and ignores the testing package's own timeout", () => {
    const main =
      "panic: close of closed channel\n\ngoroutine 1 [running]:\nmain.shutdown(...)\n" +
      "\t/src/app/main.go:21\nmain.main()\n\t/src/app/main.go:30 +0x1d\nexit status 2\n";
    expect(parseFailures(main)).toEqual([
      {
        test: null,
        kind: "panic",
        message: "panic: close of closed channel\n    main.shutdown main.go:21\n    main.main main.go:30",
        tracerInduced: false,
      },
    ]);
    expect(
      parseFailures(
        "=== RUN   TestHang\npanic: test timed out after 1s\n\trunning tests:\n\t\tTestHang (1s)\n\ngoroutine 5 [running]:\ntesting.(*M).startAlarm.func1()\n",
      ),
    ).toEqual([]);
  });
});

/** One run of each failing fixture package, recorded as collect records it. */
describe("collect reads a test binary's whole output: each failure class, for what it is", () => {
  interface RecordedRun {
    readonly outcome: string;
    readonly untraced: string | null;
    readonly digest: string;
    readonly tail: string;
  }
  const runs = new Map<string, RecordedRun>();

  beforeAll(async () => {
    const dir = scratch("failure-classes");
    const db = join(dir, "s.db");
    await collect({
      paths: ["earlyfail", "examplefail", "poolpanic", "fatalmany", "tracercrash", "tracercrashmain"].map((p) =>
        join(FAILURES, p),
      ),
      runs: 1,
      procs: [2],
      jobs: 2,
      timeoutMs: 20_000,
      db,
      traces: join(dir, "traces"),
    });
    const sqlite = new Database(db, { readonly: true });
    try {
      const rows = sqlite
        .prepare(
          "SELECT p.name, r.outcome, r.untraced, r.output_digest AS digest, r.stderr_tail AS tail FROM runs r JOIN programs p ON p.id = r.program_id",
        )
        .all() as (RecordedRun & { name: string })[];
      for (const row of rows) runs.set(row.name, row);
    } finally {
      sqlite.close();
    }
  }, 120_000);

  const run = (name: string): RecordedRun => {
    const found = runs.get(name);
    if (found === undefined) throw new Error(`no run of ${name}`);
    return found;
  };

  it("keeps a failure the first test printed amid more than 1 MiB of later verbose output", () => {
    const { digest, tail } = run("earlyfail");
    expect(digest.length).toBeLessThan(2048);
    expect(parseFailures(digest)).toEqual([
      {
        test: "TestChecksum",
        kind: "fail",
        message: "suite_test.go:11: loading fixtures\nsuite_test.go:12: checksum = 0xbeef, want 0xcafe",
        tracerInduced: false,
      },
      { test: "TestSubtests/bad", kind: "fail", message: "suite_test.go:17: bad subtest", tracerInduced: false },
    ]);
    // The tail kept in runs.stderr_tail holds only the end of TestVerbose's log.
    expect(parseFailures(tail)).toEqual([]);
  });

  it("gives a failing Example's got/want as its message", () => {
    expect(parseFailures(run("examplefail").digest)).toEqual([
      {
        test: "Example_greeting",
        kind: "fail",
        message: "got:\nhello\nworld\nwant:\nhello\nthere",
        tracerInduced: false,
      },
    ]);
  });

  it("charges a panic in a (*Pool).run goroutine to the running test", () => {
    expect(run("poolpanic").outcome).toBe("panic");
    expect(parseFailures(run("poolpanic").digest)).toEqual([
      {
        test: "TestSubmit",
        kind: "panic",
        message: "panic: assignment to entry in nil map\n    poolpanic.(*Pool).run pool_test.go:23",
        tracerInduced: false,
      },
    ]);
  });

  it("detects a fatal error after 20 000 parked goroutines as fatal, with its header the tail lost; its untraced rerun crashes too", () => {
    const { digest, tail, untraced } = run("fatalmany");
    expect(digest.length).toBeLessThan(4096);
    expect(digest).toMatch(/^fatal error: sync: unlock of unlocked mutex$/m);
    expect(tail).not.toContain("fatal error:");
    expect(parseFailures(tail)).toEqual([]);
    expect(parseFailures(digest)).toEqual([
      {
        test: "TestUnlockTwice",
        kind: "fatal",
        message: "fatal error: sync: unlock of unlocked mutex\n    fatalmany.TestUnlockTwice unlock_test.go:18",
        tracerInduced: false,
      },
    ]);
    expect(untraced).toBe("crashed");
  });

  it("reruns a crash under the tracer without it: the rerun passes, so the crash is the tracer's", () => {
    const { digest, untraced, outcome } = run("tracercrash");
    expect(digest).toMatch(/^SIGABRT: abort$/m);
    expect(outcome).toBe("exit-error");
    expect(untraced).toBe("ok");
    const failures = withUntracedRerun(parseFailures(digest), "ok");
    expect(failures).toEqual([
      {
        test: "TestCrashUnderTracer",
        kind: "fatal",
        message: `SIGABRT: abort — ${TRACER_CRASH_NOTE}\n    tracercrash.TestCrashUnderTracer crash_test.go:18`,
        tracerInduced: true,
      },
    ]);
  });

  it("reruns a main program without SCHEDLAB_TRACE, so its harness starts no trace: it passes too", () => {
    const { digest, untraced } = run("tracercrashmain");
    expect(digest).toMatch(/^SIGABRT: abort$/m);
    expect(untraced).toBe("ok");
    expect(withUntracedRerun(parseFailures(digest), "ok")).toMatchObject([
      { test: null, kind: "fatal", tracerInduced: true },
    ]);
  });
});
