// Canonical identities: the pure naming rules, and stability over 5 real runs of a
// program with a deterministic creation tree.

import { execa } from "execa";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalGoroutineIds, shortFunctionName, testName } from "../../src/trace/identity.js";
import type { DecodedGoroutine } from "../../src/trace/types.js";
import { decodeAll, fixture } from "./helpers.js";

const g = (over: Partial<DecodedGoroutine> & { goroutine: number }): DecodedGoroutine => ({
  parent: null,
  root: "none",
  preTrace: false,
  ordinal: 0,
  entry: "main.f",
  runs: null,
  creationSite: null,
  siteKey: null,
  ...over,
});

describe("canonicalGoroutineIds", () => {
  it("builds creation paths with entry, site and ordinal", () => {
    const ids = canonicalGoroutineIds([
      g({ goroutine: 1, root: "program", preTrace: true, entry: "main.main" }),
      g({ goroutine: 7, parent: 1, entry: "example.com/m/pkg.Serve", siteKey: "server.go:40", ordinal: 0 }),
      g({ goroutine: 8, parent: 1, entry: "example.com/m/pkg.Serve", siteKey: "server.go:40", ordinal: 1 }),
      g({ goroutine: 9, parent: 8, entry: "main.main.func1", siteKey: "main.go:9", ordinal: 0 }),
      g({ goroutine: 4, preTrace: true, entry: "main.init.0.func1" }),
    ]).map((i) => i.canonicalId);
    expect(ids).toEqual([
      "main.main",
      "main.main/pkg.Serve@server.go:40#0",
      "main.main/pkg.Serve@server.go:40#1",
      "main.main/pkg.Serve@server.go:40#1/main.main.func1@main.go:9#0",
      "(pre-trace)/main.init.0.func1#0",
    ]);
  });

  it("names test roots by test function, numbers repeats, and uses the expected order only when consistent", () => {
    const roots = [
      g({ goroutine: 5, root: "test", entry: "testing.tRunner", runs: "example.com/m.TestA" }),
      g({ goroutine: 9, root: "test", entry: "testing.tRunner" }),
      g({ goroutine: 12, root: "test", entry: "testing.tRunner", runs: "example.com/m.TestA" }),
    ];
    expect(canonicalGoroutineIds(roots).map((i) => i.canonicalId)).toEqual(["TestA", "(test)", "TestA#1"]);
    expect(canonicalGoroutineIds(roots, { testNames: ["TestA", "TestB", "TestA"] }).map((i) => i.canonicalId)).toEqual(["TestA", "TestB", "TestA#1"]);
    // -test.count=3 of a one-test list
    expect(canonicalGoroutineIds(roots, { testNames: ["TestA"] }).map((i) => i.canonicalId)).toEqual(["TestA", "TestA#1", "TestA#2"]);
    // inconsistent with what the stacks say: ignored
    expect(canonicalGoroutineIds(roots, { testNames: ["TestB", "TestC", "TestA"] }).map((i) => i.canonicalId)).toEqual(["TestA", "(test)", "TestA#1"]);
  });

  it("shortens function names", () => {
    expect(shortFunctionName("example.com/m/pkg.(*T).Run.func2")).toBe("pkg.(*T).Run.func2");
    expect(testName("example.com/m/pkg.TestFoo")).toBe("TestFoo");
    expect(testName("main.TestFoo")).toBe("TestFoo");
  });
});

describe("identity stability", () => {
  it("gives the same canonical ids in 5 runs of a deterministic creation tree", async () => {
    const dir = mkdtempSync(join(tmpdir(), "schedlab-identity-"));
    const binary = join(dir, "tree");
    await execa("go", ["build", "-o", binary, "."], { cwd: fixture("tree") });
    const runs: string[][] = [];
    for (let i = 0; i < 5; i++) {
      const tracePath = join(dir, `run-${i}.trace`);
      await execa(binary, [tracePath], { env: { GOMAXPROCS: String(1 + (i % 2)) } });
      const d = await decodeAll(tracePath, { mode: "main" });
      expect(d.summary.status).toBe("ok");
      runs.push(d.summary.goroutines.map((x) => x.canonicalId).sort());
    }
    expect(runs[0]).toHaveLength(7);
    for (const ids of runs) expect(ids).toEqual(runs[0]);
  });
});
