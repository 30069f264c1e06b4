// The rewrites on a program full of scoping traps (embedded types, interface methods,
// shadowing, generics, type switches, labels, closures, a test file): every variant
// builds, prints exactly what the original prints, and its tests still pass.

import { execa } from "execa";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mutateProgram, originalOfVariant, renameCreator, rewriteManifest } from "../../src/fidelity/index.js";

const dir = mkdtempSync(join(tmpdir(), "schedlab-mutate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MAIN = `package main

import (
	"fmt"
	"sort"
	"sync"
)

type shape interface{ area() int }

type base struct{ id int }

func (b base) describe() string { return fmt.Sprint("base ", b.id) }

type square struct {
	base
	side int
}

func (s square) area() int { return s.side * s.side }

type byArea []shape

func (a byArea) Len() int           { return len(a) }
func (a byArea) Less(i, j int) bool { return a[i].area() < a[j].area() }
func (a byArea) Swap(i, j int)      { a[i], a[j] = a[j], a[i] }

func mapOf[T any, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

var total = compute(3)

func compute(n int) int { return n * 7 }

func kind(x any) string {
	switch v := x.(type) {
	case int:
		return fmt.Sprint("int ", v)
	case square:
		return fmt.Sprint("square ", v.area())
	default:
		return "other"
	}
}

func main() {
	shapes := byArea{square{base{1}, 3}, square{base: base{id: 2}, side: 1}}
	sort.Sort(shapes)
	compute := func(s shape) int { return s.area() + total }
	fmt.Println(mapOf([]shape(shapes), compute))
	fmt.Println(shapes[0].(square).describe(), shapes[0].(square).base.id, kind(4), kind(shapes[1]))
	area := shapes[1].area
	results := make([]int, 4)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = i * area()
		}()
	}
	wg.Wait()
outer:
	for _, r := range results {
		for j := 0; j < 3; j++ {
			if r > 10 && j == 1 {
				break outer
			}
		}
		fmt.Print(r, " ")
	}
	fmt.Println()
}
`;

const TEST = `package main

import "testing"

func TestCompute(t *testing.T) {
	if got := compute(2); got != 14 {
		t.Fatalf("compute(2) = %d", got)
	}
	if kind(square{side: 2}) != "square 4" {
		t.Fatal("kind")
	}
}
`;

describe("mutateProgram", () => {
  it("keeps behaviour under every rewrite and several seeds", async () => {
    const program = join(dir, "traps");
    mkdirSync(program);
    writeFileSync(join(program, "main.go"), MAIN);
    writeFileSync(join(program, "main_test.go"), TEST);
    writeFileSync(join(program, "go.mod"), "module example.com/traps\n\ngo 1.22\n");
    const expected = (await execa("go", ["run", "."], { cwd: program })).stdout;
    expect(expected).toBe("[22 30]\nbase 2 2 int 4 square 9\n0 9 ");
    for (const seed of [1, 2]) {
      const { variants, failures } = await mutateProgram(program, {
        kinds: ["rename", "reorder", "deadcode"],
        seed,
        outDir: join(dir, "out"),
      });
      expect(failures).toEqual([]);
      expect(variants).toHaveLength(3);
      for (const v of variants) {
        expect((await execa("go", ["run", "."], { cwd: v.dir })).stdout, `${v.kind} seed ${seed}`).toBe(expected);
        expect(
          (await execa("go", ["test", "-count=1", "."], { cwd: v.dir, reject: false })).exitCode,
          `${v.kind} seed ${seed}`,
        ).toBe(0);
        const source = readFileSync(join(v.dir, "main.go"), "utf8");
        if (v.kind === "rename") {
          // package-level names renamed except base (embedded: the field is named after it); methods (Len, area, describe), fields, main kept
          expect(Object.keys(v.renamed).sort()).toEqual([
            "byArea",
            "compute",
            "kind",
            "mapOf",
            "shape",
            "square",
            "total",
          ]);
          for (const kept of [
            "func main()",
            ") area() int",
            ") Len() int",
            ") describe() string",
            "side int",
            "TestCompute",
          ])
            expect(source + readFileSync(join(v.dir, "main_test.go"), "utf8")).toContain(kept);
          expect(v.renamedLocals).toBeGreaterThan(10);
        }
        if (v.kind === "reorder") {
          // var total and its initialiser stay in the var's slot; imports stay first
          expect(source.indexOf("import (")).toBeLessThan(source.indexOf("func "));
          expect(v.movedDecls).toBeGreaterThan(0);
        }
        if (v.kind === "deadcode") expect(source).toContain("if false {");
        expect(originalOfVariant(v.name)).toEqual({ base: "traps", kind: v.kind, seed });
      }
    }
  }, 300_000);

  it("reports a program that does not type-check and still writes the other kinds", async () => {
    const program = join(dir, "broken");
    mkdirSync(program);
    writeFileSync(join(program, "main.go"), 'package main\n\nfunc main() {\n\tvar x int = "no"\n\t_ = x\n}\n');
    const { variants, failures } = await mutateProgram(program, {
      kinds: ["rename", "reorder"],
      seed: 1,
      outDir: join(dir, "out-broken"),
    });
    expect(failures.map((f) => f.kind)).toEqual(["rename", "reorder"]);
    expect(failures[0]!.message).toContain("does not type-check");
    expect(failures[1]!.message).toContain("does not build");
    expect(variants).toEqual([]);
  }, 120_000);
});

describe("manifest rewriting", () => {
  it("moves sites and renames creators but never the package path", () => {
    const renamed = { worker: "xabc", pool: "xdef", main: "never" };
    expect(renameCreator("main.worker", renamed)).toBe("main.xabc");
    expect(renameCreator("main.(*pool).run.func1", renamed)).toBe("main.(*xdef).run.func1");
    expect(renameCreator("corpus/worker/pool.worker", renamed)).toBe("corpus/worker/pool.xabc");
    const manifest = {
      kind: "main",
      pattern: "p",
      outcome: "leak",
      bugClass: null,
      expected: [{ creator: "main.worker", site: "main.go:10", reason: "select" }],
      showsOn: "every",
      tags: [],
      description: "d",
    } as const;
    expect(rewriteManifest(manifest, { renamed, sites: { "main.go:10": "main.go:14" } }).expected[0]).toEqual({
      creator: "main.xabc",
      site: "main.go:14",
      reason: "select",
    });
    expect(() => rewriteManifest(manifest, { renamed, sites: {} })).toThrow(/does not have/);
  });
});
