// Runs the Go helper's own tests (`go test ./...` in src/gohelper: the decoder on real
// traces, the source editor, the overlay rewrites, mutation and the static scans) with the
// real toolchain, so `npm test` covers them. Every package of the module must report ok:
// a package that fails, or that has no test files, fails this test. The sources are also
// held to Go's own formatter and vet, as Prettier and eslint hold the TypeScript.

import { join } from "node:path";
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

  it("are gofmt-formatted and pass go vet", async () => {
    // gofmt from the toolchain's own GOROOT: PATH may hold only the go command.
    const goroot = (await execa("go", ["env", "GOROOT"])).stdout.trim();
    const unformatted = await execa(join(goroot, "bin", "gofmt"), ["-l", "."], { cwd: GOHELPER_SOURCE_DIR });
    expect(unformatted.stdout.split("\n").filter((line) => line !== "")).toEqual([]);
    const vet = await execa("go", ["vet", "./..."], { cwd: GOHELPER_SOURCE_DIR, reject: false, all: true });
    expect(vet.exitCode, vet.all).toBe(0);
  });
});
