// The committed bug kernels: manifests are valid and point at real `go` statements (and,
// for potential deadlocks, at real lock calls), and one real run of every kernel leaves
// exactly the goroutines its manifest expects blocked; potential-deadlock kernels and their
// clean negative controls pass and leave nothing blocked.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { manifestProblems, MANIFEST_FILE, runTimeExpected, type Manifest } from "../../src/corpus/manifest.js";
import { key, type BlockedGoroutine } from "./goroutine-dump.js";
import { observeKernels, type KernelObservation } from "./kernel-run.js";

const moduleDir = fileURLToPath(new URL("../../go-programs", import.meta.url));
const modulePath = "schedlab.dev/corpus";

function kernelDirs(): string[] {
  const dirs: string[] = [];
  for (const cls of readdirSync(join(moduleDir, "kernels"), { withFileTypes: true })) {
    if (!cls.isDirectory()) continue;
    for (const k of readdirSync(join(moduleDir, "kernels", cls.name), { withFileTypes: true })) {
      if (k.isDirectory()) dirs.push(`kernels/${cls.name}/${k.name}`);
    }
  }
  return dirs.sort();
}

const kernels = kernelDirs();
const manifestOf = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(moduleDir, dir, MANIFEST_FILE), "utf8")) as Manifest;
const goFiles = (dir: string): string[] => readdirSync(join(moduleDir, dir)).filter((f) => f.endsWith(".go"));
const expectedKeys = (m: Manifest): string[] =>
  runTimeExpected(m)
    .map((e) => key(e as BlockedGoroutine))
    .sort();
/** Kernels whose test passes on every schedule with nothing blocked: latent bugs and their negative controls. */
const neverBlocks = (m: Manifest): boolean => m.outcome === "potential-deadlock" || m.outcome === "clean";

describe("bug kernels", () => {
  it("has at least 30 kernels, about a third of them hanging", () => {
    expect(kernels.length).toBeGreaterThanOrEqual(30);
    const hanging = kernels.filter((d) => manifestOf(d).outcome === "deadlock").length;
    expect(hanging / kernels.length).toBeGreaterThan(0.2);
    expect(hanging / kernels.length).toBeLessThan(0.4);
    expect(kernels.filter((d) => manifestOf(d).showsOn === "some").length).toBeGreaterThanOrEqual(5);
  });

  it("has lock-order and recursive-read potential deadlocks, each class with a clean negative control", () => {
    const classesOf = (outcome: Manifest["outcome"]): Set<string> =>
      new Set(kernels.filter((d) => manifestOf(d).outcome === outcome).map((d) => d.split("/")[1]));
    expect([...classesOf("potential-deadlock")].sort()).toEqual(["lockorder", "rwrecursive"]);
    for (const cls of classesOf("potential-deadlock")) expect(classesOf("clean").has(cls), cls).toBe(true);
  });

  it.each(kernels)("%s: valid test-kind manifest, one TestXxx in a package named after its directory", (dir) => {
    const m = manifestOf(dir);
    expect(manifestProblems(m)).toEqual([]);
    expect(m.kind).toBe("test");
    expect(["leak", "deadlock", "potential-deadlock", "clean"]).toContain(m.outcome);
    const name = dir.split("/").at(-1);
    const sources = goFiles(dir).map((f) => readFileSync(join(moduleDir, dir, f), "utf8"));
    expect(sources.every((s) => new RegExp(`^package ${name}$`, "m").test(s))).toBe(true);
    expect(sources.join("\n").match(/^func Test\w+\(t \*testing\.T\)/gm)).toHaveLength(1);
  });

  it.each(kernels)("%s: every expected site is a `go` statement inside its creator", (dir) => {
    for (const e of manifestOf(dir).expected) {
      const fn = e.creator.slice(`${modulePath}/${dir}.`.length);
      expect(e.creator.startsWith(`${modulePath}/${dir}.`)).toBe(true);
      if (e.site === null) {
        expect(fn).toMatch(/^Test\w+$/);
        continue;
      }
      const [file, line] = e.site.split(":");
      const text = readFileSync(join(moduleDir, dir, file), "utf8").split("\n")[Number(line) - 1];
      expect(text).toMatch(/^\s*go \S/);
      // The creator's body contains the site: the nearest preceding func declaration is the creator.
      const before = readFileSync(join(moduleDir, dir, file), "utf8")
        .split("\n")
        .slice(0, Number(line));
      const decl = before.reverse().find((l) => l.startsWith("func "));
      const method = /^\*?(\w+)\)\.(\w+)$/.exec(fn.replace(/^\(/, ""));
      const declName = method ? `${method[2]}` : fn;
      expect(decl).toMatch(new RegExp(`^func (\\([^)]*\\) )?${declName}\\(`));
    }
  });

  it.each(kernels.filter((d) => manifestOf(d).outcome === "potential-deadlock"))(
    "%s: every lockSite is a Lock or RLock call",
    (dir) => {
      for (const e of manifestOf(dir).expected) {
        const [file, line] = e.lockSite!.split(":");
        const text = readFileSync(join(moduleDir, dir, file), "utf8").split("\n")[Number(line) - 1];
        expect(text).toMatch(/^\s*[\w.]+\.R?Lock\(\)/);
      }
    },
  );

  describe("run once under go test", () => {
    let observed: Map<string, KernelObservation>;
    beforeAll(async () => {
      observed = await observeKernels(moduleDir, modulePath, kernels);
    });

    it.each(kernels)("%s: blocked goroutines match the manifest", async (dir) => {
      const m = manifestOf(dir);
      const matches = (seen: string[]): boolean =>
        m.showsOn === "every" ? seen.join() === expectedKeys(m).join() : seen.every((g) => expectedKeys(m).includes(g));
      let seen = observed.get(dir)?.blocked.map(key) ?? [];
      if (!matches(seen)) {
        // One retry: on a heavily loaded machine a millisecond sleep can oversleep, and a
        // kernel's own deadline can expire while its goroutines are still sleeping.
        seen = (await observeKernels(moduleDir, modulePath, [dir])).get(dir)?.blocked.map(key) ?? [];
      }
      if (m.showsOn === "every") expect(seen).toEqual(expectedKeys(m));
      else for (const g of seen) expect(expectedKeys(m)).toContain(g);
      if (neverBlocks(m)) {
        expect(seen).toEqual([]);
        expect(observed.get(dir)?.output).toMatch(/^--- PASS: Test\w+/m);
      }
    });
  });
});
