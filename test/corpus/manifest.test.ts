// The manifest fields for real-world suites (src/corpus/manifest.ts): the "network" and
// "syscall" reasons, which only a goroutine that outlives its test has, outcome "fail", and
// the expected `failures` of every schedule, each entry checked.

import { describe, expect, it } from "vitest";
import { BLOCK_REASONS, FAILURE_KINDS, manifestProblems, OUTCOMES } from "../../src/corpus/index.js";

const leak = {
  kind: "test",
  pattern: "test-server",
  outcome: "leak",
  bugClass: "server-never-closed",
  expected: [
    {
      creator: "example.com/realsuites/server.TestListenerLeft",
      site: "server_test.go:83",
      reason: "network",
      finding: "outlived",
    },
  ],
  showsOn: "every",
  tags: ["net.Listen"],
  description: "An accept loop that outlives its test.",
};
const [server] = leak.expected;

const failing = {
  ...leak,
  pattern: "unit-tests",
  outcome: "fail",
  bugClass: "wrong-result",
  expected: [],
  failures: [{ test: "TestAlwaysFails", kind: "fail", message: "want 3 items, got 2" }],
};

describe("network and syscall reasons", () => {
  it("are block reasons a manifest may give", () => {
    expect(BLOCK_REASONS).toContain("network");
    expect(BLOCK_REASONS).toContain("syscall");
  });

  it("are accepted for a goroutine that outlives its test", () => {
    expect(manifestProblems(leak)).toEqual([]);
    expect(manifestProblems({ ...leak, expected: [{ ...server, reason: "syscall" }] })).toEqual([]);
  });

  it("are refused for a goroutine blocked for ever, said or by default", () => {
    const { finding: _, ...blocked } = server;
    expect(manifestProblems({ ...leak, expected: [blocked] })).toEqual([
      'expected[0]: reason "network" needs finding "outlived" (network and syscall waits end by themselves)',
    ]);
    expect(
      manifestProblems({ ...leak, expected: [{ ...server, reason: "syscall", finding: "blocked-forever" }] }),
    ).toEqual(['expected[0]: reason "syscall" needs finding "outlived" (network and syscall waits end by themselves)']);
  });
});

describe("outcome fail", () => {
  it("is an outcome, with failures and no expected goroutine", () => {
    expect(OUTCOMES).toContain("fail");
    expect(manifestProblems(failing)).toEqual([]);
  });

  it("needs a non-empty failures array", () => {
    const { failures: _, ...withoutFailures } = failing;
    const needed = "outcome fail needs failures, a non-empty array of expected failures";
    expect(manifestProblems(withoutFailures)).toEqual([needed]);
    expect(manifestProblems({ ...failing, failures: [] })).toEqual([needed]);
  });
});

describe("failures", () => {
  it("are allowed with any outcome, for tests and for a main program", () => {
    expect(FAILURE_KINDS).toEqual(["fail", "panic", "fatal"]);
    const failures = [
      { test: "ExampleFetch", kind: "fail", message: "i/o timeout" },
      { test: "TestPool/resize", kind: "panic" },
      { test: "TestUnderTracer", kind: "fatal", tracerInduced: true },
      { test: null, kind: "fatal", message: "concurrent map writes", tracerInduced: false },
    ];
    expect(manifestProblems({ ...leak, failures })).toEqual([]);
    expect(
      manifestProblems({ ...leak, outcome: "clean", bugClass: null, expected: [], showsOn: "never", failures }),
    ).toEqual([]);
    expect(manifestProblems({ ...leak, outcome: "panic", expected: [], failures: [] })).toEqual([]);
  });

  it("must be an array of objects", () => {
    expect(manifestProblems({ ...leak, failures: { test: "TestX", kind: "fail" } })).toEqual([
      "failures must be an array of expected failures when present",
    ]);
    expect(manifestProblems({ ...leak, failures: ["TestX", null] })).toEqual([
      "failures[0] is not an object",
      "failures[1] is not an object",
    ]);
  });

  it("name a test as go test -run does, or null", () => {
    expect(
      manifestProblems({
        ...leak,
        failures: [{ test: "alwaysFails", kind: "fail" }, { kind: "fail" }, { test: "TestA B", kind: "fail" }],
      }),
    ).toEqual([
      'failures[0].test must be a test name as go test -run takes it ("TestX", "ExampleX") or null (a main program), got "alwaysFails"',
      'failures[1].test must be a test name as go test -run takes it ("TestX", "ExampleX") or null (a main program), got undefined',
      'failures[2].test must be a test name as go test -run takes it ("TestX", "ExampleX") or null (a main program), got "TestA B"',
    ]);
  });

  it("have a known kind, a non-empty message and a boolean tracerInduced", () => {
    expect(
      manifestProblems({
        ...leak,
        failures: [
          { test: "TestX", kind: "crash" },
          { test: "TestX", kind: "panic", message: "" },
          { test: "TestX", kind: "fatal", message: 3, tracerInduced: "yes" },
        ],
      }),
    ).toEqual([
      'failures[0].kind must be one of fail, panic, fatal, got "crash"',
      "failures[1].message must be a non-empty string when present",
      "failures[2].message must be a non-empty string when present",
      "failures[2].tracerInduced must be true or false when present",
    ]);
  });
});
