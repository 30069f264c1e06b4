// The flaky rule on hand-built runs: a test failing on some schedules and passing on
// others is flaky (with the first failing run to replay); failing everywhere, failing
// only in cut runs' company, the tracer's own failures and the race detector's are not.

import { describe, expect, test } from "vitest";
import { parseFailures, withUntracedRerun, type TestFailure } from "../../src/collect/index.js";
import { detectTestFailures, detectTracerInduced, failureSummary, type FailureRun } from "../../src/leaks/index.js";

const WAIT_FAILS: TestFailure = {
  test: "TestWaitDrains",
  kind: "fail",
  message: "pool_test.go:21: 1 workers still active after Wait",
  tracerInduced: false,
};
const TRACER: TestFailure = {
  test: "TestMain",
  kind: "fail",
  message: "found unexpected goroutines: runtime/trace.(*traceMultiplexer).startLocked.func1",
  tracerInduced: true,
};
const RACE: TestFailure = {
  test: "TestCounter",
  kind: "fail",
  message: "testing.go:1490: race detected during execution of test",
  tracerInduced: false,
};

function runOf(
  runId: number,
  strategy: FailureRun["strategy"],
  failures: readonly TestFailure[],
  cut = false,
): FailureRun {
  return {
    runId,
    config: strategy === "perturb" ? "procs-2-perturb" : "procs-2",
    strategy,
    seed: strategy === "perturb" ? 1000 + runId : null,
    cut,
    failures,
  };
}

const replay = (runId: number) => `schedlab collect --replay ${runId} --db x.db`;

/** The flaky tests of `runs`: detectTestFailures' flaky list. */
function flakyOf(program: string, runs: readonly FailureRun[], replayOf: (runId: number) => string) {
  return detectTestFailures(program, runs, replayOf).flaky;
}

describe("flaky tests (detectTestFailures)", () => {
  test("a test that fails only under perturbation is flaky, with the first failing run to replay", () => {
    const runs = [
      runOf(1, "plain", []),
      runOf(2, "plain", []),
      runOf(3, "perturb", []),
      runOf(4, "perturb", [WAIT_FAILS]),
      runOf(5, "perturb", [WAIT_FAILS]),
    ];
    expect(flakyOf("pool", runs, replay)).toEqual([
      {
        program: "pool",
        test: "TestWaitDrains",
        kind: "fail",
        message: WAIT_FAILS.message,
        summary: WAIT_FAILS.message,
        runsFailed: 2,
        runsPassed: 3,
        plainRunsFailed: 0,
        strategies: ["perturb procs-2-perturb"],
        run: { runId: 4, config: "procs-2-perturb", strategy: "perturb", seed: 1004 },
        replay: "schedlab collect --replay 4 --db x.db",
      },
    ]);
  });

  test("a test failing in every run is not flaky, and cut runs do not count as passing", () => {
    expect(flakyOf("pool", [runOf(1, "plain", [WAIT_FAILS]), runOf(2, "perturb", [WAIT_FAILS])], replay)).toEqual([]);
    expect(flakyOf("pool", [runOf(1, "plain", [WAIT_FAILS]), runOf(2, "perturb", [], true)], replay)).toEqual([]);
  });

  test("the tracer's own failures and the race detector's are never flaky; the tracer's are listed apart", () => {
    const runs = [runOf(1, "plain", [TRACER]), runOf(2, "race", [RACE]), runOf(3, "plain", [])];
    expect(flakyOf("suite", runs, replay)).toEqual([]);
    expect(detectTracerInduced("suite", runs, replay)).toEqual([
      {
        program: "suite",
        test: "TestMain",
        kind: "fail",
        message: TRACER.message,
        runs: 1,
        untraced: null,
        run: { runId: 1, config: "procs-2", strategy: "plain", seed: null },
        replay: "schedlab collect --replay 1 --db x.db",
      },
    ]);
  });
});

const CRASH: TestFailure = {
  test: "TestUnlockTwice",
  kind: "fatal",
  message: "fatal error: sync: unlock of unlocked mutex\n    fatalmany.TestUnlockTwice unlock_test.go:18",
  tracerInduced: false,
};
const EXAMPLE: TestFailure = {
  test: "Example_greeting",
  kind: "fail",
  message: "got:\nhello\nworld\nwant:\nhello\nthere",
  tracerInduced: false,
};

describe("detectTestFailures", () => {
  test("a test failing in every run is failing, with its message; a run cut after the failure counts, one cut before says nothing", () => {
    const runs = [
      runOf(1, "plain", [EXAMPLE]),
      runOf(2, "perturb", [EXAMPLE]),
      runOf(3, "plain", [], true),
      runOf(4, "plain", [EXAMPLE], true),
    ];
    const found = detectTestFailures("greet", runs, replay);
    expect(found.flaky).toEqual([]);
    expect(found.crashed).toEqual([]);
    expect(found.failing).toEqual([
      {
        program: "greet",
        test: "Example_greeting",
        message: EXAMPLE.message,
        summary: "line 2: got world; want there",
        runsFailed: 3,
        plainRunsFailed: 2,
        cutRunsFailed: 1,
        strategies: ["perturb procs-2-perturb", "plain procs-2"],
        run: { runId: 1, config: "procs-2", strategy: "plain", seed: null },
        replay: "schedlab collect --replay 1 --db x.db",
      },
    ]);
  });

  test("a crash in every run is crashed, with its header, stack and untraced rerun; on some schedules only it is flaky", () => {
    const always = detectTestFailures(
      "fatalmany",
      [{ ...runOf(1, "plain", [CRASH]), untraced: "crashed" }, runOf(2, "plain", [CRASH])],
      replay,
    );
    expect(always.failing).toEqual([]);
    expect(always.crashed).toEqual([
      {
        program: "fatalmany",
        test: "TestUnlockTwice",
        kind: "fatal",
        header: "fatal error: sync: unlock of unlocked mutex",
        message: CRASH.message,
        stack: ["fatalmany.TestUnlockTwice unlock_test.go:18"],
        runsCrashed: 2,
        plainRunsCrashed: 2,
        strategies: ["plain procs-2"],
        untraced: "crashed",
        run: { runId: 1, config: "procs-2", strategy: "plain", seed: null },
        replay: "schedlab collect --replay 1 --db x.db",
      },
    ]);
    const sometimes = detectTestFailures("fatalmany", [runOf(1, "perturb", [CRASH]), runOf(2, "plain", [])], replay);
    expect(sometimes.crashed).toEqual([]);
    expect(sometimes.flaky).toMatchObject([{ test: "TestUnlockTwice", kind: "fatal", runsFailed: 1, runsPassed: 1 }]);
  });

  test("a run another test's crash ended says nothing of a test that did not fail in it", () => {
    const other: TestFailure = { ...CRASH, test: "TestOther", kind: "panic", message: "panic: boom" };
    const found = detectTestFailures(
      "suite",
      [runOf(1, "plain", [WAIT_FAILS, other]), runOf(2, "plain", [other])],
      replay,
    );
    expect(found.flaky).toEqual([]);
    expect(found.failing.map((f) => f.test)).toEqual(["TestWaitDrains"]);
    expect(found.crashed.map((c) => c.test)).toEqual(["TestOther"]);
  });

  test("a crash the untraced rerun did not repeat is the tracer's: listed apart with the rerun's outcome, never a crash", () => {
    const [marked] = withUntracedRerun([CRASH], "ok");
    expect(marked).toEqual({
      ...CRASH,
      tracerInduced: true,
      message:
        "fatal error: sync: unlock of unlocked mutex — crashed only under the execution tracer (the same binary passed when rerun without it)\n" +
        "    fatalmany.TestUnlockTwice unlock_test.go:18",
    });
    const found = detectTestFailures("fatalmany", [{ ...runOf(1, "plain", [marked!]), untraced: "ok" }], replay);
    expect(found.crashed).toEqual([]);
    expect(found.tracerInduced).toEqual([
      {
        program: "fatalmany",
        test: "TestUnlockTwice",
        kind: "fatal",
        message: marked!.message,
        runs: 1,
        untraced: "ok",
        run: { runId: 1, config: "procs-2", strategy: "plain", seed: null },
        replay: "schedlab collect --replay 1 --db x.db",
      },
    ]);
    // A panic is the code's, and a crash the rerun repeated stays a crash.
    expect(withUntracedRerun([{ ...CRASH, kind: "panic" }], "ok")[0]!.tracerInduced).toBe(false);
    expect(withUntracedRerun([CRASH], "crashed")).toEqual([CRASH]);
  });
});

describe("a failure's one line (failureSummary)", () => {
  test("an Example's got/want, as go test -v prints it, is summed up as what it got and wanted", () => {
    const output = [
      "=== RUN   ExampleSpread",
      "--- FAIL: ExampleSpread (0.00s)",
      "got:",
      "workers: 2",
      "want:",
      "workers: 1",
      "FAIL",
    ].join("\n");
    const [failure] = parseFailures(output);
    expect(failure?.test).toBe("ExampleSpread");
    expect(failureSummary(failure?.message ?? "")).toBe("got workers: 2; want workers: 1");
    expect(failureSummary("got:\nhello\nworld\nwant:\nhello\nthere")).toBe("line 2: got world; want there");
    expect(failureSummary("got:\nhello\nwant:\nhello\nthere\n")).toBe("line 2: got nothing; want there");
  });

  test("any other message gives its first line that is not empty, never an empty cell", () => {
    expect(failureSummary("\n    pool_test.go:14: reserved 4 of 3\nmore")).toBe("pool_test.go:14: reserved 4 of 3");
    expect(failureSummary("")).toBe("(no message)");
  });

  test("a flaky Example's finding carries it", () => {
    const failing: TestFailure = {
      test: "ExampleSpread",
      kind: "fail",
      message: "got:\nworkers: 2\nwant:\nworkers: 1",
      tracerInduced: false,
    };
    const flaky = flakyOf("flakyexample", [runOf(1, "plain", []), runOf(2, "plain", [failing])], replay);
    expect(flaky.map((f) => f.summary)).toEqual(["got workers: 2; want workers: 1"]);
  });
});
