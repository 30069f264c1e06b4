// `schedlab doctor` on this machine (everything present) and without Go on PATH.

import { describe, expect, it } from "vitest";
import { diagnose, type Diagnosis } from "../../src/collect/index.js";
import { runCli } from "../helpers/cli.js";

describe("schedlab doctor", () => {
  it("reports Node, Go, GOROOT, the Go helper and go tool trace as ok here", async () => {
    const result = await runCli(["doctor", "--json"]);
    expect(result.code).toBe(0);
    const diagnosis = JSON.parse(result.stdout) as Diagnosis;
    expect(diagnosis.checks.map((c) => c.name)).toEqual([
      "node",
      "go",
      "GOROOT",
      "go helper (trace decoder)",
      "go tool trace",
    ]);
    expect(diagnosis.checks.filter((c) => !c.ok)).toEqual([]);
    expect(diagnosis.checks[1].detail).toMatch(/^go1\.\d+/);
    const text = await runCli(["doctor"]);
    expect(text.stdout).toContain("Everything schedlab needs is in place.");
  });

  it("fails with a fix when Go is not on PATH", async () => {
    const saved = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      const diagnosis = await diagnose();
      expect(diagnosis.ok).toBe(false);
      const go = diagnosis.checks.find((c) => c.name === "go")!;
      expect(go.ok).toBe(false);
      expect(go.fix).toMatch(/Install Go 1\.22 or newer/);
    } finally {
      process.env.PATH = saved;
    }
  });
});
