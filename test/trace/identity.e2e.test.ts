// Canonical identities: the pure naming rules, and stability over 5 real runs of a
// program with a deterministic creation tree.

import { execa } from "execa";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { splitCanonicalId } from "../../src/leaks/test-path.js";
import {
  canonicalGoroutineIds,
  ID_HEAD_SEGMENTS,
  ID_MAX_SEGMENTS,
  shortFunctionName,
  testName,
} from "../../src/trace/identity.js";
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
    expect(canonicalGoroutineIds(roots, { testNames: ["TestA", "TestB", "TestA"] }).map((i) => i.canonicalId)).toEqual([
      "TestA",
      "TestB",
      "TestA#1",
    ]);
    // -test.count=3 of a one-test list
    expect(canonicalGoroutineIds(roots, { testNames: ["TestA"] }).map((i) => i.canonicalId)).toEqual([
      "TestA",
      "TestA#1",
      "TestA#2",
    ]);
    // inconsistent with what the stacks say: ignored
    expect(canonicalGoroutineIds(roots, { testNames: ["TestB", "TestC", "TestA"] }).map((i) => i.canonicalId)).toEqual([
      "TestA",
      "(test)",
      "TestA#1",
    ]);
  });

  it("hangs goroutines started by TestMain or an example from a named root with no goroutine of its own", () => {
    const ids = canonicalGoroutineIds([
      g({ goroutine: 25, namedRoot: "TestMain", entry: "example.com/m/pkg.Sweep", siteKey: "main_test.go:10" }),
      g({
        goroutine: 26,
        namedRoot: "TestMain",
        entry: "example.com/m/pkg.Sweep",
        siteKey: "main_test.go:10",
        ordinal: 1,
      }),
      g({ goroutine: 30, parent: 26, entry: "example.com/m/pkg.tick", siteKey: "w.go:3" }),
      g({ goroutine: 31, namedRoot: "ExampleCache", entry: "example.com/m/pkg.(*Cache).loop", siteKey: "cache.go:40" }),
    ]);
    expect(ids.map((i) => [i.canonicalId, i.parent, i.isRoot])).toEqual([
      ["TestMain/pkg.Sweep@main_test.go:10#0", null, false],
      ["TestMain/pkg.Sweep@main_test.go:10#1", null, false],
      ["TestMain/pkg.Sweep@main_test.go:10#1/pkg.tick@w.go:3#0", 26, false],
      ["ExampleCache/pkg.(*Cache).loop@cache.go:40#0", null, false],
    ]);
  });

  it("shortens function names", () => {
    expect(shortFunctionName("example.com/m/pkg.(*T).Run.func2")).toBe("pkg.(*T).Run.func2");
    expect(testName("example.com/m/pkg.TestFoo")).toBe("TestFoo");
    expect(testName("main.TestFoo")).toBe("TestFoo");
  });
});

/** A test root whose goroutine starts a worker that starts its successor, `depth` deep; `odd` changes one step's site. */
function spawnChain(depth: number, odd = -1): DecodedGoroutine[] {
  const chain = [
    g({ goroutine: 1_000_000, root: "test", entry: "testing.tRunner", runs: "example.com/m/pkg.TestPool" }),
  ];
  // goroutine ids need not grow along the chain (each P hands out its own batch)
  for (let i = 1; i <= depth; i++)
    chain.push(
      g({
        goroutine: i % 2 === 0 ? i : 500_000 + i,
        parent: chain[i - 1].goroutine,
        entry: "example.com/m/pkg.worker",
        siteKey: i === odd ? "w.go:99" : "w.go:12",
      }),
    );
  return chain.reverse(); // children before their parents
}

describe("bounded canonical ids", () => {
  it("writes chains up to the limit out in full", () => {
    const ids = canonicalGoroutineIds(spawnChain(ID_MAX_SEGMENTS)).map((i) => i.canonicalId);
    expect(ids[0]).toBe(["TestPool", ...Array<string>(ID_MAX_SEGMENTS).fill("pkg.worker@w.go:12#0")].join("/"));
    expect(ids.every((id) => !id.includes("…"))).toBe(true);
  });

  it("keeps the root, the first segments and the last one of a deep chain, the middle hashed with its count", () => {
    const depth = 20_000;
    const infos = canonicalGoroutineIds(spawnChain(depth));
    const deepest = infos[0].canonicalId;
    const step = "pkg.worker@w.go:12#0";
    expect(deepest).toMatch(
      new RegExp(
        `^TestPool(/${step.replace(/[.*()]/g, "\\$&")}){${ID_HEAD_SEGMENTS}}/…\\{${depth - ID_HEAD_SEGMENTS - 1} steps:[0-9a-f]{12}\\}/${step.replace(/[.*()]/g, "\\$&")}$`,
      ),
    );
    expect(Math.max(...infos.map((i) => i.canonicalId.length))).toBeLessThan(200);
    expect(new Set(infos.map((i) => i.canonicalId)).size).toBe(depth + 1);
    // the test path reads the head; the creation site is the last segment
    const split = splitCanonicalId(deepest);
    expect(split.root).toBe("TestPool");
    expect(split.segments).toHaveLength(ID_HEAD_SEGMENTS + 2);
    expect(split.segments[ID_HEAD_SEGMENTS]).toEqual({
      entry: `…{${depth - ID_HEAD_SEGMENTS - 1} steps:${/steps:([0-9a-f]+)/.exec(deepest)?.[1]}}`,
      siteKey: "",
      ordinal: 0,
    });
    expect(split.segments[ID_HEAD_SEGMENTS + 1]).toEqual({ entry: "pkg.worker", siteKey: "w.go:12", ordinal: 0 });
  });

  it("gives the same chain the same id and a chain differing in its elided middle another", () => {
    const depth = 50;
    const a = canonicalGoroutineIds(spawnChain(depth))[0].canonicalId;
    expect(canonicalGoroutineIds(spawnChain(depth))[0].canonicalId).toBe(a);
    const b = canonicalGoroutineIds(spawnChain(depth, 20))[0].canonicalId;
    expect(b).not.toBe(a);
    expect(b.replace(/steps:[0-9a-f]+/, "")).toBe(a.replace(/steps:[0-9a-f]+/, "")); // only the hash tells them apart
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
