// What the untraced rerun changes of a traced run: the trace and nothing else — a test
// binary's -test.trace flag, a main program's SCHEDLAB_TRACE (so the harness starts no trace),
// its dump and the peers' report files, and HOME/TMPDIR, which become the rerun's own.

import { describe, expect, it } from "vitest";
import {
  HARNESS_ENV,
  peerRunEnv,
  PEERS,
  testArguments,
  untracedArguments,
  untracedEnvironment,
  type RunConfig,
} from "../../src/collect/index.js";

const CONFIG: RunConfig = { key: "procs-2-count-3", procs: 2, testCount: 3, strategy: "plain", testSkip: "TestSlow" };

describe("the untraced rerun", () => {
  it("gives a test binary the traced run's arguments without -test.trace", () => {
    const request = { kind: "test" as const, testName: "TestCrash", config: CONFIG, timeoutMs: 4000 };
    const traced = testArguments(request, "/t/run-0.trace.partial");
    expect(traced).toContain("-test.trace=/t/run-0.trace.partial");
    expect(untracedArguments(request)).toEqual(traced.filter((a) => !a.startsWith("-test.trace=")));
    expect(untracedArguments(request)).toEqual([
      "-test.timeout=4000ms",
      "-test.v=true",
      "-test.run=^TestCrash$",
      "-test.skip=TestSlow",
      "-test.count=3",
    ]);
    expect(untracedArguments({ ...request, kind: "main" })).toEqual([]);
  });

  it("keeps the traced run's environment but its trace, dump and peer reports, in a directory of its own", () => {
    const env = {
      PATH: "/usr/bin",
      HOME: "/tmp/schedlab-run-1",
      TMPDIR: "/tmp/schedlab-run-1",
      GOMAXPROCS: "2",
      GOTRACEBACK: "all",
      GORACE: "halt_on_error=0",
      [HARNESS_ENV.trace]: "/t/run-0.trace.partial",
      [HARNESS_ENV.dump]: "/t/run-0.dump.partial",
      [HARNESS_ENV.deadlineMs]: "4000",
      ...peerRunEnv("/t/run-0.trace", PEERS),
    };
    expect(untracedEnvironment(env, "/tmp/schedlab-untraced-1")).toEqual({
      PATH: "/usr/bin",
      HOME: "/tmp/schedlab-untraced-1",
      TMPDIR: "/tmp/schedlab-untraced-1",
      GOMAXPROCS: "2",
      GOTRACEBACK: "all",
      GORACE: "halt_on_error=0",
      [HARNESS_ENV.deadlineMs]: "4000",
    });
  });
});
