// Reading the top-level test order from a package's _test.go files.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testFunctionsInOrder } from "../../src/trace/testOrder.js";
import { fixture } from "./helpers.js";

describe("testFunctionsInOrder", () => {
  it("lists internal test files by name, then external ones, functions in source order", () => {
    const dir = mkdtempSync(join(tmpdir(), "schedlab-test-order-"));
    writeFileSync(
      join(dir, "b_test.go"),
      'package p\n\nimport "testing"\n\n' +
        "func TestZed(t *testing.T) {}\nfunc TestAlpha(t *testing.T) {}\n" +
        "func Testlower(t *testing.T) {}\nfunc helper(t *testing.T) {}\n",
    );
    writeFileSync(
      join(dir, "a_test.go"),
      'package p\n\nimport "testing"\n\nfunc TestFirst(tt *testing.T) {}\nfunc BenchmarkX(b *testing.B) {}\n',
    );
    writeFileSync(
      join(dir, "0_ext_test.go"),
      'package p_test\n\nimport "testing"\n\nfunc TestExternal(t *testing.T) {}\n',
    );
    writeFileSync(join(dir, "p.go"), "package p\n\nfunc TestNotATest(t *testing.T) {}\n");
    expect(testFunctionsInOrder(dir)).toEqual(["TestFirst", "TestZed", "TestAlpha", "TestExternal"]);
  });

  it("reads the fixture package and tolerates a missing directory", () => {
    expect(testFunctionsInOrder(fixture("testpkg"))).toEqual(["TestQuiet", "TestWorkers"]);
    expect(testFunctionsInOrder(join(tmpdir(), "schedlab-no-such-dir"))).toEqual([]);
  });
});
