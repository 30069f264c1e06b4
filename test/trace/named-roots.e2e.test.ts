// Goroutines started by TestMain and by ExampleXxx functions, which the testing package
// runs on goroutine 1 (not a user goroutine): real test binaries under test/fixtures/identity.

import { execa } from "execa";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/index.js";
import { ingestRuns } from "../../src/trace/index.js";
import { decodeAll } from "./helpers.js";

const IDENTITY = fileURLToPath(new URL("../fixtures/identity/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "schedlab-named-roots-"));
const GO_ENV = { GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local" };

async function testBinary(pkg: string): Promise<string> {
  const binary = join(dir, `${pkg}.test`);
  await execa("go", ["test", "-c", "-o", binary, "."], { cwd: join(IDENTITY, pkg), env: GO_ENV });
  return binary;
}

const ids = (d: Awaited<ReturnType<typeof decodeAll>>): string[] =>
  d.summary.goroutines.map((g) => g.canonicalId).sort();

let example = "";
let testmain = "";

beforeAll(async () => {
  [example, testmain] = await Promise.all([testBinary("example"), testBinary("testmain")]);
}, 120_000);

describe("named roots", () => {
  it("hangs what an example starts from the example, as collect runs it (-test.trace)", async () => {
    const trace = join(dir, "example.trace");
    await execa(example, [`-test.trace=${trace}`, "-test.v=true"], { env: { GOMAXPROCS: "2" } });
    for (const mode of ["test", "auto"] as const) {
      const d = await decodeAll(trace, { mode });
      expect(ids(d)).toEqual([
        "ExampleCache/cache.(*Cache).loop@cache.go:13#0",
        "ExampleCache/cache_test.ExampleCache.func1@cache_test.go:13#0",
        "ExampleCache_Get/cache.(*Cache).loop@cache.go:13#0",
        "TestGet",
        "TestGet/cache.(*Cache).loop@cache.go:13#0",
      ]);
      const loop = d.summary.goroutines.find((g) => g.canonicalId.startsWith("ExampleCache/cache.(*Cache).loop"));
      expect(loop).toMatchObject({
        parent: null,
        isRoot: false,
        entry: "example.com/cache.(*Cache).loop",
        creationSite: "example.com/cache.New cache.go:13",
      });
      // its records are kept: created by goroutine 1 (not a user goroutine: no actor), started, blocked in its select, ended
      const kinds = d.records.filter((r) => r.goroutine === loop?.goroutine).map((r) => r.kind);
      expect(kinds[0]).toBe("GoCreate");
      expect(kinds).toContain("GoEnd");
      expect(d.records.find((r) => r.goroutine === loop?.goroutine)?.actor).toBeNull();
    }
  });

  it("names each example's goroutines by their own root", async () => {
    const trace = join(dir, "example-count.trace");
    await execa(example, [`-test.trace=${trace}`, "-test.run=Example"]);
    const d = await decodeAll(trace, { mode: "test" });
    expect(ids(d)).toEqual([
      "ExampleCache/cache.(*Cache).loop@cache.go:13#0",
      "ExampleCache/cache_test.ExampleCache.func1@cache_test.go:13#0",
      "ExampleCache_Get/cache.(*Cache).loop@cache.go:13#0",
    ]);
  });

  it("hangs what TestMain starts during a trace from TestMain", async () => {
    const trace = join(dir, "testmain.trace");
    await execa(testmain, [], { env: { TRACE: trace } }); // TestMain traces itself
    const d = await decodeAll(trace);
    expect(ids(d)).toEqual([
      "(pre-trace)/janitor.Sweep#0", // started before the trace began: its creator is unknown
      "(test)",
      "TestMain/janitor.Sweep@main_test.go:13#0",
      "TestMain/janitor.Sweep@main_test.go:13#1",
    ]);
  });

  it("keeps a goroutine TestMain starts before m.Run as pre-trace under -test.trace", async () => {
    const trace = join(dir, "testmain-flag.trace");
    await execa(testmain, [`-test.trace=${trace}`]);
    expect(ids(await decodeAll(trace, { mode: "test" }))).toEqual(["(pre-trace)/janitor.Sweep#0", "(test)"]);
  });

  it("stores the named roots' goroutines through ingest, with no row for the root itself", async () => {
    const trace = join(dir, "example-ingest.trace");
    await execa(example, [`-test.trace=${trace}`, "-test.run=ExampleCache$"]);
    const db = openDatabase(join(dir, "schedlab.db"));
    try {
      const program = db
        .prepare(
          "INSERT INTO programs (name, root, dir, kind, source_hash) VALUES ('identity/example', ?, ?, 'test', 'x')",
        )
        .run(IDENTITY, join(IDENTITY, "example")).lastInsertRowid;
      db.prepare(
        "INSERT INTO runs (program_id, config, procs, run_index, outcome, trace_path, created_at) VALUES (?, 'procs-2', 2, 0, 'ok', ?, '2026-01-01T00:00:00Z')",
      ).run(program, trace);
      expect((await ingestRuns(db, { concurrency: 1 })).ok).toBe(1);
      const rows = db.prepare("SELECT canonical_id, parent_gid, is_root FROM goroutines ORDER BY canonical_id").all();
      expect(rows).toEqual([
        { canonical_id: "ExampleCache/cache.(*Cache).loop@cache.go:13#0", parent_gid: null, is_root: 0 },
        { canonical_id: "ExampleCache/cache_test.ExampleCache.func1@cache_test.go:13#0", parent_gid: null, is_root: 0 },
      ]);
    } finally {
      db.close();
    }
  });
});
