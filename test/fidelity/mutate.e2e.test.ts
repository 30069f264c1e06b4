// End to end on real Go: a program written by the test is rewritten three ways by
// `schedlab mutate`, the variants build, are collected and ingested like any program,
// and their traces have the same shape as the original's; then `schedlab fidelity`
// checks predictors on the held-out states and on originals against variants.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renameCreator } from "../../src/fidelity/index.js";
import { openDatabase } from "../../src/store/index.js";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "schedlab-fidelity-e2e-"));
const dbPath = join(dir, "schedlab.db");
const corpus = join(dir, "programs");
const variantsDir = join(dir, "variants");

/** Workers fan results into a channel; one goroutine leaks on a receive nobody sends to. */
const WORKERS = `package main

import (
	"fmt"
	"sync"
)

const workerCount = 3

type result struct {
	worker int
	value  int
}

type collector struct {
	mu    sync.Mutex
	total int
}

func (c *collector) add(r result) {
	c.mu.Lock()
	c.total += r.value
	c.mu.Unlock()
}

func square(n int) int { return n * n }

func work(id int, out chan<- result, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < 4; i++ {
		out <- result{worker: id, value: square(i + id)}
	}
}

func startLeaker(never chan int) {
	go func() {
		<-never
	}()
}

func main() {
	out := make(chan result)
	var wg sync.WaitGroup
	for id := 0; id < workerCount; id++ {
		wg.Add(1)
		go work(id, out, &wg)
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	startLeaker(make(chan int))
	var c collector
	for r := range out {
		c.add(r)
	}
	fmt.Println(c.total)
}
`;

const MANIFEST = {
  kind: "main",
  pattern: "fan-in",
  outcome: "leak",
  bugClass: "forgotten-receiver",
  expected: [{ creator: "main.startLeaker", site: "main.go:36", reason: "chan receive" }],
  showsOn: "every",
  tags: ["test"],
  description: "Three workers fan into a channel; one goroutine waits forever on a channel nobody sends to.",
};

const PINGPONG = `package main

func main() {
	ping, pong := make(chan int), make(chan int)
	done := make(chan struct{})
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(done)
	}()
	for i := 0; i < 10; i++ {
		ping <- i
		<-pong
	}
	close(ping)
	<-done
}
`;

interface VariantJson {
  kind: string;
  dir: string;
  name: string;
  renamed: Record<string, string>;
  sites: Record<string, string>;
}

let variants: VariantJson[] = [];

beforeAll(async () => {
  mkdirSync(join(corpus, "workers"), { recursive: true });
  mkdirSync(join(corpus, "pingpong"));
  writeFileSync(join(corpus, "go.mod"), "module example.com/fidelitye2e\n\ngo 1.22\n");
  writeFileSync(join(corpus, "workers", "main.go"), WORKERS);
  writeFileSync(join(corpus, "workers", "schedlab.json"), JSON.stringify(MANIFEST, null, 2));
  writeFileSync(join(corpus, "pingpong", "main.go"), PINGPONG);
  const mutated = await runCli([
    "mutate",
    join(corpus, "workers"),
    "--kind",
    "all",
    "--seed",
    "5",
    "--out",
    variantsDir,
    "--json",
  ]);
  if (mutated.code !== 0) throw new Error(`mutate failed: ${mutated.stderr}`);
  variants = (JSON.parse(mutated.stdout) as { variants: VariantJson[] }).variants;
  for (const root of [corpus, variantsDir]) {
    const collected = await runCli([
      "collect",
      root,
      "--runs",
      "4",
      "--timeout",
      "20s",
      "--db",
      dbPath,
      "--traces",
      join(dir, "traces"),
      "--json",
    ]);
    if (collected.code !== 0) throw new Error(`collect ${root} failed: ${collected.stderr}`);
  }
  const ingested = await runCli(["ingest", "--db", dbPath]);
  if (ingested.code !== 0) throw new Error(`ingest failed: ${ingested.stderr}`);
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("schedlab mutate", () => {
  it("writes one building variant per kind (and the unchanged control copy) with the manifest's go statement moved and its creator renamed", () => {
    expect(variants.map((v) => v.kind)).toEqual(["rename", "reorder", "deadcode", "copy"]);
    expect(readFileSync(join(variants[3]!.dir, "main.go"), "utf8")).toBe(WORKERS);
    for (const v of variants) {
      const source = readFileSync(join(v.dir, "main.go"), "utf8").split("\n");
      const manifest = JSON.parse(readFileSync(join(v.dir, "schedlab.json"), "utf8")) as typeof MANIFEST;
      const site = manifest.expected[0]!.site;
      expect(v.sites["main.go:36"]).toBe(site);
      // the line the manifest names is still the leaking go statement
      expect(source[Number(site.split(":")[1]) - 1]!.trim()).toBe("go func() {");
      expect(Object.keys(v.sites).sort()).toEqual(["main.go:36", "main.go:46", "main.go:48"]);
      if (v.kind === "rename") {
        expect(Object.keys(v.renamed).sort()).toEqual([
          "collector",
          "result",
          "square",
          "startLeaker",
          "work",
          "workerCount",
        ]);
        expect(manifest.expected[0]!.creator).toBe(`main.${v.renamed.startLeaker!}`);
        // methods, fields, main and imported names are kept
        expect(source.join("\n")).toContain(") add(");
        expect(source.join("\n")).toContain("worker: ");
        expect(source.join("\n")).toContain("func main()");
      } else {
        expect(manifest.expected[0]!.creator).toBe("main.startLeaker");
      }
    }
    expect(variants.find((v) => v.kind === "deadcode")!.sites["main.go:36"]).not.toBe("main.go:36");
  });

  it("produces traces of the same shape: goroutine count, creation tree and event multiset per run", () => {
    const db = openDatabase(dbPath);
    try {
      const shape = (program: string): string[] => {
        const runs = db
          .prepare(
            `SELECT r.id FROM runs r JOIN programs p ON p.id = r.program_id WHERE p.name = ? AND r.ingest_status = 'ok' ORDER BY r.id`,
          )
          .all(program) as { id: number }[];
        return runs.map(({ id }) => {
          const tree = (
            db.prepare(`SELECT canonical_id FROM goroutines WHERE run_id = ?`).all(id) as { canonical_id: string }[]
          )
            .map((g) => g.canonical_id)
            .sort();
          const kinds = db
            .prepare(
              `SELECT kind, count(*) AS n FROM events WHERE run_id = ? AND kind IN ('GoCreate', 'GoEnd') GROUP BY kind ORDER BY kind`,
            )
            .all(id) as { kind: string; n: number }[];
          return JSON.stringify({ tree, kinds });
        });
      };
      const original = shape("workers");
      expect(original).toHaveLength(4);
      expect(new Set(original).size).toBe(1);
      for (const v of variants) {
        // canonical ids name entry functions and creation sites: translate the original's
        // through the variant's rename table and site map, and the trees must coincide
        const expected = original.map((run) => {
          const parsed = JSON.parse(run) as { tree: string[]; kinds: unknown };
          const tree = parsed.tree
            .map((id) =>
              id
                .split("/")
                .map((piece) => {
                  const [fn, site] = piece.split("@") as [string, string | undefined];
                  const renamedFn = renameCreator(fn, v.renamed);
                  if (site === undefined) return renamedFn;
                  const [at, ordinal] = site.split("#") as [string, string];
                  return `${renamedFn}@${v.sites[at] ?? at}#${ordinal}`;
                })
                .join("/"),
            )
            .sort();
          return JSON.stringify({ tree, kinds: parsed.kinds });
        });
        expect(shape(v.name), v.kind).toEqual(expected);
      }
    } finally {
      db.close();
    }
  });
});

describe("schedlab fidelity", () => {
  it("finds no violation between a predictor and itself and prints the thresholds", async () => {
    const result = await runCli([
      "fidelity",
      "--teacher",
      "ngram:2",
      "--student",
      "ngram:2",
      "--abstraction",
      "depth",
      "--holdout",
      "list:workers",
      "--db",
      dbPath,
      "--bootstrap",
      "100",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("thresholds: tau=0.1 nats, confidence=0.8, delta=0.1, mr4-threshold=0.1, bins=15");
    expect(result.stdout).toMatch(/MR1 {2}top-1 disagreement +0\.0%/);
  }, 300_000);

  it("reports relations with CIs and both accuracies as JSON", async () => {
    const result = await runCli([
      "fidelity",
      "--teacher",
      "ngram:3",
      "--student",
      "majority",
      "--abstraction",
      "depth",
      "--holdout",
      "list:workers",
      "--db",
      dbPath,
      "--bootstrap",
      "100",
      "--tau",
      "0.2",
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as {
      thresholds: { tau: number };
      relations: Record<string, { violationRate: number; ci: { lower: number; upper: number } }>;
      teacher: { accuracy: number };
      student: { accuracy: number };
    };
    expect(json.thresholds.tau).toBe(0.2);
    expect(Object.keys(json.relations)).toEqual(["MR1", "MR2", "MR3", "MR4"]);
    for (const r of Object.values(json.relations)) {
      if (r.violationRate === null) continue;
      expect(r.violationRate).toBeGreaterThanOrEqual(0);
      expect(r.violationRate).toBeLessThanOrEqual(1);
    }
    // the majority student predicts one event everywhere; ngram:3 does not
    expect(json.relations.MR1!.violationRate).toBeGreaterThan(0);
    expect(json.teacher.accuracy).toBeGreaterThan(0);
  }, 300_000);

  it("compares predictors on originals against their variants", async () => {
    const result = await runCli([
      "fidelity",
      "--teacher",
      "ngram:3",
      "--student",
      "majority",
      "--abstraction",
      "split",
      "--variants",
      "--db",
      dbPath,
      "--bootstrap",
      "100",
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as {
      pairs: { original: string; kind: string }[];
      flips: { predictor: string; kind: string; matchedStates: number; flipRate: number }[];
    };
    expect(json.pairs.map((p) => `${p.original}/${p.kind}`).sort()).toEqual([
      "workers/copy",
      "workers/deadcode",
      "workers/rename",
      "workers/reorder",
    ]);
    expect(json.flips).toHaveLength(8);
    for (const f of json.flips) {
      // split keys are 25/50/75: every one is in both the original and the variant
      expect(f.matchedStates).toBe(3);
      expect(f.flipRate).toBeGreaterThanOrEqual(0);
    }
    // the majority predictor says the same thing on every state: it cannot flip
    for (const f of json.flips.filter((x) => x.predictor === "majority")) expect(f.flipRate).toBe(0);
  }, 300_000);

  it("shows the stored runs in the report", async () => {
    const evaluated = await runCli([
      "eval",
      "--predictor",
      "majority",
      "--abstraction",
      "depth",
      "--holdout",
      "list:workers",
      "--db",
      dbPath,
      "--resamples",
      "50",
    ]);
    expect(evaluated.code, evaluated.stderr).toBe(0);
    const out = join(dir, "report");
    const report = await runCli(["report", "--db", dbPath, "--out", out]);
    expect(report.code, report.stderr).toBe(0);
    const markdown = readFileSync(join(out, "report.md"), "utf8");
    expect(markdown).toContain("Teacher/student fidelity");
    // three stored runs (identical, ngram vs majority, variants) and the flips of the variants run
    expect(markdown).toMatch(/\| 3 \| variants \| ngram:3 \| majority \| split \| variants \(4 pairs\)/);
    expect(markdown).toMatch(
      /\| 1 \| holdout \| ngram:2 \| ngram:2 \| depth \| list:workers .*\| 0\.000 \| 0\.000 \| 0\.000 \| 0\.000 \|/,
    );
    expect(markdown).toContain("| majority | rename | 1 | 3 | 0.000 |");
  }, 300_000);
});
