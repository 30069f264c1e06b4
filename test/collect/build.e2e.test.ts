// Building: batches of one module's packages share one `go` command, a failing package
// does not take the others down and gets its own compiler output, and binaries with
// the same name never share a batch.

import { execa } from "execa";
import { basename, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildBatch, buildBatches, type BuildTarget } from "../../src/collect/index.js";
import { discoverPrograms } from "../../src/corpus/index.js";
import { goToolchain, type GoToolchain } from "../../src/go/index.js";
import { PROGRAMS, scratch } from "./helpers.js";

const MODTREE = join(PROGRAMS, "modtree");
let go: GoToolchain;
let targets: Map<string, BuildTarget>;

beforeAll(async () => {
  go = await goToolchain();
  const { programs } = await discoverPrograms([MODTREE]);
  targets = new Map(programs.map((p) => [p.name, { dir: p.dir, kind: p.kind, goFiles: p.goFiles }]));
});

describe("buildBatches", () => {
  it("groups by module and kind, never putting two binaries of the same name together", () => {
    const batches = buildBatches([...targets.values()], 16);
    const names = batches.map((batch) => batch.map((t) => `${t.kind}:${t.dir.slice(MODTREE.length + 1)}`));
    expect(names).toEqual([["main:cmd/broken", "main:cmd/hello"], ["main:tools/hello"], ["test:work"]]);
    for (const batch of batches) expect(new Set(batch.map((t) => basename(t.dir))).size).toBe(batch.length);
    expect(buildBatches([...targets.values()], 1).every((batch) => batch.length === 1)).toBe(true);
  });
});

describe("buildBatch", () => {
  it("builds the good programs of a batch and reports the broken one with its own compiler output", async () => {
    const batch = [targets.get("cmd/broken")!, targets.get("cmd/hello")!];
    const [broken, hello] = await buildBatch(batch, go, scratch("batch"));
    expect(broken.status).toBe("error");
    expect(broken.binary).toBeNull();
    expect(broken.output).toContain(join(MODTREE, "cmd", "broken", "main.go") + ":6:2: undefined: notDeclared");
    expect(hello.status).toBe("ok");
    // The batch-built binary carries the harness: without a trace file it just runs main.
    const run = await execa(hello.binary!, [], { env: { PATH: process.env.PATH ?? "" }, extendEnv: false });
    expect(run.stdout).toBe("14");
  });
});
