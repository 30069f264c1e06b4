// `schedlab --version` prints package.json's version, the one pipeline stage hashes include.

import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { SCHEDLAB_VERSION } from "../../src/version.js";
import { runCli } from "../helpers/cli.js";

it("prints the package version and exits 0", async () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  expect(SCHEDLAB_VERSION).toBe(pkg.version);
  const result = await runCli(["--version"]);
  expect(result.code).toBe(0);
  expect(result.stdout.trim()).toBe(pkg.version);
});
