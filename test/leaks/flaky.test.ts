// The flaky rule on hand-built runs: a test failing on some schedules and passing on
// others is flaky (with the first failing run to replay); failing everywhere, failing
// only in cut runs' company, the tracer's own failures and the race detector's are not.

import { describe, expect, test } from "vitest";
import type { TestFailure } from "../../src/collect/index.js";
import { detectFlaky, detectTracerInduced, type FailureRun } from "../../src/leaks/index.js";

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

describe("detectFlaky", () => {
  test("a test that fails only under perturbation is flaky, with the first failing run to replay", () => {
    const runs = [
      runOf(1, "plain", []),
      runOf(2, "plain", []),
      runOf(3, "perturb", []),
      runOf(4, "perturb", [WAIT_FAILS]),
      runOf(5, "perturb", [WAIT_FAILS]),
    ];
    expect(detectFlaky("pool", runs, replay)).toEqual([
      {
        program: "pool",
        test: "TestWaitDrains",
        kind: "fail",
        message: WAIT_FAILS.message,
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
    expect(detectFlaky("pool", [runOf(1, "plain", [WAIT_FAILS]), runOf(2, "perturb", [WAIT_FAILS])], replay)).toEqual(
      [],
    );
    expect(detectFlaky("pool", [runOf(1, "plain", [WAIT_FAILS]), runOf(2, "perturb", [], true)], replay)).toEqual([]);
  });

  test("the tracer's own failures and the race detector's are never flaky; the tracer's are listed apart", () => {
    const runs = [runOf(1, "plain", [TRACER]), runOf(2, "race", [RACE]), runOf(3, "plain", [])];
    expect(detectFlaky("suite", runs, replay)).toEqual([]);
    expect(detectTracerInduced("suite", runs)).toEqual([
      { program: "suite", test: "TestMain", message: TRACER.message, runs: 1 },
    ]);
  });
});
