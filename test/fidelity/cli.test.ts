// Option errors of `schedlab fidelity` and `schedlab mutate` are caught before any work,
// with a hint, and exit with the usage code.

import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

describe("fidelity and mutate options", () => {
  it("rejects thresholds outside their range", async () => {
    const r = await runCli([
      "fidelity",
      "--teacher",
      "majority",
      "--student",
      "uniform",
      "--abstraction",
      "depth",
      "--confidence",
      "1.5",
      "--db",
      "/nonexistent/x.db",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--confidence must be a number in [0, 1]");
  });

  it("refuses --variants together with --holdout", async () => {
    const r = await runCli([
      "fidelity",
      "--teacher",
      "majority",
      "--student",
      "uniform",
      "--abstraction",
      "depth",
      "--variants",
      "--holdout",
      "list:a",
      "--db",
      "/nonexistent/x.db",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--variants and --holdout do not go together");
  });

  it("rejects an unknown rewrite kind", async () => {
    const r = await runCli(["mutate", "somewhere", "--kind", "rename,shuffle", "--out", "/tmp/never-written"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown --kind "shuffle"');
  });

  it("says what to pass when the program directory has no Go files", async () => {
    const r = await runCli(["mutate", "/nonexistent-program-dir", "--out", "/tmp/never-written"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not a directory with .go files");
  });
});
