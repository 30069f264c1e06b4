// End to end on real traces: a small Go test package is compiled once, run several times
// under the execution tracer, ingested by the trace stage, and turned into datasets.

import { execa } from "execa";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { eventSequence, statesFromRuns } from "../../src/dataset/abstractions.js";
import { totalCount } from "../../src/dataset/distribution.js";
import { stateCeiling } from "../../src/dataset/summary.js";
import { ingestedPrograms, loadDataset, refreshDataset } from "../../src/dataset/store.js";
import { loadSide } from "../../src/dataset/split-data.js";
import { renderPrefix } from "../../src/dataset/render.js";
import { isEventType } from "../../src/core/index.js";
import { ingestRuns } from "../../src/trace/index.js";
import { runCli } from "../helpers/cli.js";
import { scratchDatabase } from "./db-fixture.js";

const RUNS = 4;
const SOURCE = `package fanout

import (
	"sync"
	"testing"
)

func TestFanOut(t *testing.T) {
	jobs := make(chan int)
	results := make(chan int, 8)
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- j * j
			}
		}()
	}
	for i := 0; i < 8; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(results)
	sum := 0
	for r := range results {
		sum += r
	}
	if sum != 140 {
		t.Fatal(sum)
	}
}
`;

let dbFile = "";

beforeAll(async () => {
  const { db, file, dir } = scratchDatabase();
  dbFile = file;
  const pkg = join(dir, "fanout");
  mkdirSync(pkg);
  writeFileSync(join(pkg, "go.mod"), "module example.com/fanout\n\ngo 1.22\n");
  writeFileSync(join(pkg, "fanout_test.go"), SOURCE);
  const binary = join(dir, "fanout.test");
  await execa("go", ["test", "-c", "-o", binary, "."], {
    cwd: pkg,
    env: { GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local" },
  });
  const program = Number(
    db
      .prepare("INSERT INTO programs (name, root, dir, kind, source_hash) VALUES ('demo/fanout', ?, ?, 'test', 'x')")
      .run(dir, pkg).lastInsertRowid,
  );
  for (let i = 0; i < RUNS; i++) {
    const trace = join(dir, `run${i}.trace`);
    await execa(binary, ["-test.run", "TestFanOut", "-test.count", "1", "-test.trace", trace], {
      cwd: pkg,
      env: { GOMAXPROCS: "2" },
    });
    db.prepare(
      "INSERT INTO runs (program_id, config, procs, run_index, outcome, trace_path, created_at) VALUES (?, 'procs-2', 2, ?, 'ok', ?, '2026-01-01T00:00:00Z')",
    ).run(program, i, trace);
  }
  const summary = await ingestRuns(db, { concurrency: 1 });
  expect(summary.ok).toBe(RUNS);
  db.close();
}, 180_000);

describe("datasets from real traces", () => {
  it("every event is the next of one sample, split takes three per run, counts add up", async () => {
    const { openDatabase } = await import("../../src/store/index.js");
    const db = openDatabase(dbFile);
    try {
      const depth = loadSide(
        db,
        "depth",
        ingestedPrograms(db).map((p) => p.name),
      );
      const runs = [...depth.runs.values()];
      expect(runs).toHaveLength(RUNS);
      const events = runs.reduce((n, r) => n + eventSequence(r.records).length, 0);
      expect(events).toBeGreaterThan(RUNS * 20); // 1 + 3 workers, 8 jobs: dozens of events per run
      for (const abstraction of ["depth", "goroutine", "context"] as const) {
        const d =
          abstraction === "depth"
            ? depth
            : loadSide(
                db,
                abstraction,
                ingestedPrograms(db).map((p) => p.name),
              );
        expect(d.samples).toHaveLength(events);
        expect(d.states.reduce((n, s) => n + totalCount(s.counts), 0)).toBe(events);
        for (const s of d.states) {
          expect(s.runs).toBeGreaterThanOrEqual(1);
          expect(s.runs).toBeLessThanOrEqual(RUNS);
          const next = s.representative.records[s.representative.end];
          expect(isEventType(next.kind)).toBe(true);
          expect(s.counts[next.kind as keyof typeof s.counts]).toBeGreaterThan(0);
        }
        const ceiling = stateCeiling(d.states);
        expect(ceiling).toBeGreaterThan(0);
        expect(ceiling).toBeLessThanOrEqual(1);
      }
      const split = loadSide(
        db,
        "split",
        ingestedPrograms(db).map((p) => p.name),
      );
      expect(split.samples).toHaveLength(3 * RUNS);
      expect(split.states.map((s) => s.key)).toEqual(["split=25", "split=50", "split=75"]);
      expect(split.states.every((s) => s.runs === RUNS)).toBe(true);
      // The goroutine abstraction keys on canonical ids from the trace stage.
      const goroutine = loadSide(
        db,
        "goroutine",
        ingestedPrograms(db).map((p) => p.name),
      );
      expect(goroutine.states.some((s) => /TestFanOut\/.*fanout_test\.go:\d+#\d/.test(s.key))).toBe(true);
      // Depth 0 is the same first event in every run: the test goroutine being created or started.
      expect(depth.states[0].runs).toBe(RUNS);
      // Stored and in-memory agree, and a refresh with unchanged runs rebuilds nothing.
      expect(refreshDataset(db, { abstraction: "context" }).rebuilt).toEqual([]);
      const loaded = loadDataset(db, { abstraction: "context" });
      expect(loaded.states.map((s) => [s.id, s.counts])).toEqual(
        statesFromRuns(runs, "context").states.map((s) => [s.id, s.counts]),
      );
      const text = renderPrefix(split.states[1].representative, { maxTokens: 300 });
      expect(text.length).toBeLessThanOrEqual(1200);
      expect(text).toMatch(/live goroutines:\n(g\d+ .*\n)+/);
    } finally {
      db.close();
    }
  });

  it("dist and export work on the real database", async () => {
    const dist = await runCli(["dist", "--abstraction", "split", "--db", dbFile, "--json"]);
    expect(dist.code).toBe(0);
    const json = JSON.parse(dist.stdout) as {
      states: { runs: number; counts: Record<string, number> }[];
      summary: { ceiling: number };
    };
    expect(json.states).toHaveLength(3);
    expect(json.states.every((s) => Object.values(s.counts).reduce((a, b) => a + b, 0) === RUNS)).toBe(true);
    expect(json.summary.ceiling).toBeGreaterThanOrEqual(1 / 3);
    const kl = await runCli(["export", "--objective", "kl", "--db", dbFile]);
    expect(kl.code).toBe(0);
    const first = JSON.parse(kl.stdout.split("\n")[0]) as { source: string; prompt: string };
    expect(first.source).toContain("func TestFanOut");
    expect(first.prompt).toContain("GOMAXPROCS=2");
  });
});
