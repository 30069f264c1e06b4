// labelProblems on the expected failures of a manifest (src/corpus/check.ts): a test
// program's failures name tests its _test.go files declare, a main program's name none.
// The programs are the committed real-world suites of test/fixtures/realsuites.

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { labelProblems, type Manifest, type ProgramSpec } from "../../src/corpus/index.js";

const SUITES = fileURLToPath(new URL("../fixtures/realsuites/", import.meta.url));

function program(name: string, kind: ProgramSpec["kind"], goFiles: string[], testFiles: string[]): ProgramSpec {
  const dir = join(SUITES, name);
  return {
    name,
    root: SUITES,
    dir,
    kind,
    testName: null,
    goFiles: goFiles.map((f) => join(dir, f)),
    testFiles: testFiles.map((f) => join(dir, f)),
    sourceHash: "",
    manifest: null,
    manifestProblems: [],
  };
}

const failingProgram = program("failing", "test", ["cart.go"], ["cart_test.go"]);
const failing: Manifest = {
  kind: "test",
  pattern: "unit-tests",
  outcome: "fail",
  bugClass: "wrong-result",
  expected: [],
  showsOn: "every",
  tags: [],
  description: "Tests that always fail.",
  failures: [
    { test: "TestAlwaysFails", kind: "fail", message: "want 3 items, got 2" },
    { test: "ExampleGreeting", kind: "fail" },
  ],
};

describe("expected failures against the program", () => {
  it("accepts tests and examples the _test.go files declare, subtests by their top-level test", () => {
    expect(labelProblems(failingProgram, failing)).toEqual([]);
    expect(labelProblems(failingProgram, { ...failing, failures: [{ test: "TestPasses/sub", kind: "fail" }] })).toEqual(
      [],
    );
  });

  it("refuses a test the program does not declare, and a test program's failure without a test", () => {
    expect(
      labelProblems(failingProgram, {
        ...failing,
        failures: [
          { test: "TestMissing", kind: "fail" },
          { test: null, kind: "panic" },
        ],
      }),
    ).toEqual([
      "failures[0]: no func TestMissing in the program's _test.go files",
      "failures[1]: a test program's failure names its test, got null",
    ]);
  });

  it("gives a main program's failures no test", () => {
    const daemon = program("daemon", "main", ["main.go"], []);
    const crashing: Manifest = {
      ...failing,
      kind: "main",
      outcome: "panic",
      failures: [{ test: null, kind: "fatal" }],
    };
    expect(labelProblems(daemon, crashing)).toEqual([]);
    expect(labelProblems(daemon, { ...crashing, failures: [{ test: "TestMain", kind: "fatal" }] })).toEqual([
      'failures[0]: a main program has no tests, so test must be null, got "TestMain"',
    ]);
  });
});
