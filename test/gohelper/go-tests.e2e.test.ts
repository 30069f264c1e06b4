// Runs the Go helper's own tests (`go test ./...` in src/gohelper: the decoder on real
// traces, the source editor, the overlay rewrites, mutation and the static scans) with the
// real toolchain, so `npm test` covers them. Every package of the module must report ok:
// a package that fails, or that has no test files, fails this test.

import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { GOHELPER_SOURCE_DIR } from "../../src/gohelper/index.js";

describe("the Go helper's tests", () => {
  it("pass under go test ./... in every package", async () => {
    const list = await execa("go", ["list", "./..."], { cwd: GOHELPER_SOURCE_DIR });
    const packages = list.stdout.split("\n").filter((line) => line !== "");
    expect(packages).toEqual(expect.arrayContaining(["schedlab.dev/gohelper/decode", "schedlab.dev/gohelper/srcedit"]));
    const result = await execa("go", ["test", "-count=1", "./..."], {
      cwd: GOHELPER_SOURCE_DIR,
      reject: false,
      all: true,
    });
    const passed = [...(result.all ?? "").matchAll(/^ok\s+(\S+)/gm)].map((match) => match[1]);
    const withTests = packages.filter((name) => name !== "schedlab.dev/gohelper");
    expect(passed.sort(), result.all).toEqual(withTests.sort());
    expect(result.exitCode, result.all).toBe(0);
  });
});
