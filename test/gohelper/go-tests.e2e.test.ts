// Runs the Go helper's own unit tests (src/gohelper/*_test.go: the perturbation rewrite
// keeps every line, marks each synchronisation point, leaves cgo files alone) with the
// real toolchain, so `npm test` covers them.

import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { GOHELPER_SOURCE_DIR } from "../../src/gohelper/index.js";

describe("the Go helper's unit tests", () => {
  it("pass under go test", async () => {
    const result = await execa("go", ["test", "-count=1", "."], { cwd: GOHELPER_SOURCE_DIR, reject: false, all: true });
    expect(result.all).toMatch(/^ok\s+schedlab\.dev\/gohelper/m);
    expect(result.exitCode).toBe(0);
  });
});
