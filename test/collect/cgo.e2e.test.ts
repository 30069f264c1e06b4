// Packages that need cgo, as go build takes them: a main whose only file imports "C" is
// built with cgo and traced like any program; with cgo off (CGO_ENABLED=0) it is named as
// skipped with why, never dropped without a word.

import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { FIXTURES, scratch } from "./helpers.js";

const CGO = join(FIXTURES, "cgo");
const saved = process.env.CGO_ENABLED;

afterEach(() => {
  if (saved === undefined) delete process.env.CGO_ENABLED;
  else process.env.CGO_ENABLED = saved;
});

/** `schedlab collect` of the cgo fixture, one run, into a scratch database. */
function collectCgo(name: string) {
  const dir = scratch(name);
  return runCli(["collect", CGO, "--runs", "1", "--db", join(dir, "c.db"), "--traces", join(dir, "t"), "--quiet"]);
}

describe("cgo", () => {
  it("builds and traces a cgo-only main with cgo, as go build does", async () => {
    const result = await collectCgo("cgo");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/cgo \(main\): ok 1/);
  });

  it("with cgo off, says the package was skipped and why", async () => {
    process.env.CGO_ENABLED = "0";
    const result = await collectCgo("nocgo");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cgo was skipped/);
    expect(result.stderr).toMatch(/cgo \(import "C"\) and cgo is off: set CGO_ENABLED=1/);
  });
});
