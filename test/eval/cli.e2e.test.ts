// End to end on real data: four small Go programs written by the test are collected and
// ingested into a temporary SQLite file, then `schedlab eval` scores baselines on a
// held-out program and `schedlab report` renders the stored result.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSide } from "../../src/dataset/index.js";
import { writeReplayFile } from "../../src/predict/index.js";
import { openDatabase } from "../../src/store/index.js";
import { EVENT_TYPES } from "../../src/core/index.js";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "schedlab-eval-e2e-"));
const dbPath = join(dir, "schedlab.db");
const corpus = join(dir, "programs");

/** Small programs with real scheduling nondeterminism (several goroutines racing on channels and locks). */
const PROGRAMS: Record<string, string> = {
  pingpong: `package main

func main() {
	ping, pong := make(chan int), make(chan int)
	done := make(chan struct{})
	go func() {
		for v := range ping {
			pong <- v + 1
		}
		close(done)
	}()
	for i := 0; i < 20; i++ {
		ping <- i
		<-pong
	}
	close(ping)
	<-done
}
`,
  fanout: `package main

import "sync"

func main() {
	var wg sync.WaitGroup
	results := make(chan int, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				results <- id * i
			}
		}(w)
	}
	go func() { wg.Wait(); close(results) }()
	sum := 0
	for r := range results {
		sum += r
	}
	_ = sum
}
`,
  mutex: `package main

import "sync"

func main() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	count := 0
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				mu.Lock()
				count++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
`,
  selectloop: `package main

func main() {
	a, b := make(chan int), make(chan int)
	quit := make(chan struct{})
	go func() {
		for i := 0; i < 10; i++ {
			a <- i
		}
	}()
	go func() {
		for i := 0; i < 10; i++ {
			b <- i
		}
	}()
	go func() {
		got := 0
		for got < 20 {
			select {
			case <-a:
				got++
			case <-b:
				got++
			}
		}
		close(quit)
	}()
	<-quit
}
`,
};

interface EvalJson {
  schemaVersion: number;
  trainOn: string | null;
  evalRunId: number;
  abstraction: string;
  holdout: string;
  testPrograms: string[];
  predictors: {
    name: string;
    accuracy: number;
    modeAccuracy: number;
    ceiling: number;
    majority: number;
    ece: number;
    eceInterval: { estimate: number; lower: number; upper: number; resamples: number; clusters: number };
    accuracyInterval: { resamples: number; clusters: number };
    l1: number;
    brier: number;
    nll: number;
    kl: number;
    macroF1: number;
    perEvent: Record<string, { precision: number | null; recall: number | null; f1: number | null; support: number }>;
    entropySpearman: number | null;
    entropyPearson: number | null;
    samples: number;
  }[];
  comparisons: {
    a: string;
    b: string;
    clusterTest: { pValue: number };
    mcnemarIndependent: { pValue: number };
    difference: { estimate: number; lower: number; upper: number };
  }[];
  cache: { predictor: string; hits: number; computed: number }[];
}

beforeAll(async () => {
  writeFileSync(join(dir, "go.mod"), "module example.com/evale2e\n\ngo 1.22\n");
  mkdirSync(corpus);
  writeFileSync(join(corpus, "go.mod"), "module example.com/evale2e\n\ngo 1.22\n");
  for (const [name, source] of Object.entries(PROGRAMS)) {
    mkdirSync(join(corpus, name));
    writeFileSync(join(corpus, name, "main.go"), source);
  }
  const collected = await runCli([
    "collect",
    corpus,
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
  if (collected.code !== 0) throw new Error(`collect failed: ${collected.stderr}`);
  const ingested = await runCli(["ingest", "--db", dbPath]);
  if (ingested.code !== 0) throw new Error(`ingest failed: ${ingested.stderr}`);
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("schedlab eval and report on collected traces", () => {
  let first: EvalJson;
  /** The baselines on the held-out program, as JSON: run twice, the second time from the cache. */
  const baselineEval = (): string[] => [
    "eval",
    "--predictor",
    "uniform",
    "--predictor",
    "majority",
    "--predictor",
    "ngram:3",
    "--abstraction",
    "depth",
    "--holdout",
    "list:fanout",
    "--db",
    dbPath,
    "--json",
    "--resamples",
    "200",
  ];

  it("scores baselines on the held-out program with the ceiling and majority beside them", async () => {
    const result = await runCli(baselineEval());
    expect(result.stderr).not.toContain("failed");
    expect(result.code).toBe(0);
    first = JSON.parse(result.stdout) as EvalJson;
    expect(first.schemaVersion).toBe(5);
    // No --train-on: every program outside the holdout trains, and the JSON says so with null.
    expect(first.trainOn).toBeNull();
    expect(first.abstraction).toBe("depth");
    expect(first.testPrograms).toEqual(["fanout"]);
    expect(first.predictors.map((p) => p.name)).toEqual(["uniform", "majority", "ngram:3"]);
    for (const p of first.predictors) {
      for (const key of [
        "accuracy",
        "modeAccuracy",
        "ceiling",
        "majority",
        "ece",
        "l1",
        "brier",
        "nll",
        "kl",
        "macroF1",
      ] as const) {
        expect(Number.isFinite(p[key]), `${p.name}.${key}`).toBe(true);
      }
      expect(Object.keys(p.perEvent)).toEqual([...EVENT_TYPES]);
      // one label per state can never beat always predicting the state's mode
      expect(p.accuracy).toBeLessThanOrEqual(p.ceiling + 1e-12);
      expect(p.samples).toBeGreaterThan(20);
      expect(Object.values(p.perEvent).reduce((n, s) => n + s.support, 0)).toBe(p.samples);
      // one held-out program: the ECE interval collapses to the ECE, on the accuracy interval's resamples
      expect(p.eceInterval.estimate).toBeCloseTo(p.ece, 12);
      expect([p.eceInterval.lower, p.eceInterval.upper]).toEqual([p.eceInterval.estimate, p.eceInterval.estimate]);
      expect([p.eceInterval.resamples, p.eceInterval.clusters]).toEqual([200, 1]);
      expect([p.accuracyInterval.resamples, p.accuracyInterval.clusters]).toEqual([200, 1]);
    }
    const [uniform, majority] = first.predictors;
    // the uniform vector has NLL ln 6 and Brier 5/6 on every sample, whatever happened, and its tie
    // of six labels earns 1/6 of every sample, at confidence 1/6: accuracy 1/6, ECE 0
    expect(uniform!.accuracy).toBeCloseTo(1 / 6, 12);
    expect(uniform!.ece).toBeCloseTo(0, 12);
    expect(uniform!.nll).toBeCloseTo(Math.log(6), 9);
    expect(uniform!.brier).toBeCloseTo(5 / 6, 9);
    // the majority predictor's top label is the training majority class
    expect(majority!.accuracy).toBeCloseTo(majority!.majority, 12);
    expect(first.comparisons).toHaveLength(3);
    expect(first.comparisons[0]!.difference.lower).toBeLessThanOrEqual(first.comparisons[0]!.difference.upper);
  }, 300_000);

  it("stores the run and answers again from the prediction cache with the same numbers", async () => {
    const again = await runCli(baselineEval());
    expect(again.code).toBe(0);
    const second = JSON.parse(again.stdout) as EvalJson;
    expect(second.evalRunId).toBe(first.evalRunId + 1);
    for (const c of second.cache) expect(c.computed).toBe(0);
    expect(second.predictors.map((p) => p.accuracy)).toEqual(first.predictors.map((p) => p.accuracy));
    const db = openDatabase(dbPath, { readonly: true });
    const rows = db
      .prepare("SELECT predictor, accuracy FROM eval_results WHERE eval_run_id = ? ORDER BY position")
      .all(second.evalRunId);
    db.close();
    expect(rows).toEqual(second.predictors.map((p) => ({ predictor: p.name, accuracy: p.accuracy })));
  }, 300_000);

  it("scores replayed predictions of p̂ itself at the ceiling with zero divergence", async () => {
    const db = openDatabase(dbPath);
    const { states } = loadSide(db, "depth", ["fanout"]);
    db.close();
    const file = join(dir, "oracle.jsonl");
    writeReplayFile(
      file,
      states.map((s) => {
        const total = EVENT_TYPES.reduce((n, e) => n + s.counts[e], 0);
        return [s, { probabilities: EVENT_TYPES.map((e) => s.counts[e] / total) }] as const;
      }),
    );
    const result = await runCli([
      "eval",
      "--predictor",
      `replay:${file}`,
      "--abstraction",
      "depth",
      "--holdout",
      "list:fanout",
      "--db",
      dbPath,
      "--json",
      "--no-store",
    ]);
    expect(result.code).toBe(0);
    const oracle = (JSON.parse(result.stdout) as EvalJson).predictors[0]!;
    expect(oracle.accuracy).toBeCloseTo(oracle.ceiling, 12);
    expect(oracle.modeAccuracy).toBe(1);
    expect(oracle.kl).toBeCloseTo(0, 9);
    expect(oracle.l1).toBeCloseTo(0, 9);
    if (oracle.entropySpearman !== null) expect(oracle.entropySpearman).toBeCloseTo(1, 9);
  }, 300_000);

  it("prints a table on the terminal", async () => {
    const result = await runCli([
      "eval",
      "--predictor",
      "majority",
      "--abstraction",
      "split",
      "--holdout",
      "list:fanout",
      "--db",
      dbPath,
      "--no-store",
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/abstraction split · holdout list:fanout/);
    expect(result.stdout).toMatch(
      /predictor\s+accuracy\s+95% CI\s+other runs\s+mode acc\s+ceiling\s+LOO ceiling\s+majority/,
    );
    expect(result.stdout).toMatch(/ECE\s+ECE 95% CI\s+ECE other runs\s+conf − acc\s+Brier/);
    // majority, accuracy, its CI (two tokens), other runs, mode acc, ceiling, LOO ceiling, majority, macro-F1,
    // then ECE and its collapsed CI, ECE on the other runs, then the signed gap (confidence − accuracy), then Brier
    expect(result.stdout).toMatch(
      /^majority\s+(?:\S+\s+){9}(\d\.\d{3})\s+\[\1, \1\]\s+\d\.\d{3}\s+[+−]\d\.\d{3}\s+\d\.\d{3}/m,
    );
    expect(result.stdout).toMatch(/^majority\s+\d\.\d{3}/m);
  }, 300_000);

  it("reports a bad predictor without losing the others, and rejects bad options", async () => {
    const mixed = await runCli([
      "eval",
      "--predictor",
      "nosuch:1",
      "--predictor",
      "uniform",
      "--abstraction",
      "depth",
      "--holdout",
      "list:fanout",
      "--db",
      dbPath,
      "--json",
    ]);
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toMatch(/predictor nosuch:1 failed: unknown predictor/);
    expect((JSON.parse(mixed.stdout) as EvalJson).predictors.map((p) => p.name)).toEqual(["uniform"]);
    const noPredictor = await runCli(["eval", "--abstraction", "depth", "--db", dbPath]);
    expect(noPredictor.code).toBe(2);
    expect(noPredictor.stderr).toMatch(/no predictor given/);
    const badAbstraction = await runCli(["eval", "--predictor", "uniform", "--abstraction", "nope", "--db", dbPath]);
    expect(badAbstraction.code).toBe(2);
    expect(badAbstraction.stderr).toMatch(/--abstraction must be one of split, depth, goroutine, context, got "nope"/);
    const badSeed = await runCli([
      "eval",
      "--predictor",
      "uniform",
      "--abstraction",
      "depth",
      "--db",
      dbPath,
      "--seed",
      "x",
    ]);
    expect(badSeed.code).toBe(2);
    expect(badSeed.stderr).toMatch(/--seed must be an integer/);
    const noDb = await runCli([
      "eval",
      "--predictor",
      "uniform",
      "--abstraction",
      "depth",
      "--db",
      join(dir, "missing.db"),
    ]);
    expect(noDb.code).toBe(1);
    expect(noDb.stderr).toMatch(/no database at/);
  }, 300_000);

  it("writes the report of the latest evaluation", async () => {
    const out = join(dir, "report");
    const result = await runCli(["report", "--db", dbPath, "--out", out, "--json"]);
    expect(result.code).toBe(0);
    const written = JSON.parse(result.stdout) as { evalRunId: number; sections: string[] };
    expect(written.sections.slice(0, 2)).toEqual(["evaluation", "comparisons"]);
    const html = readFileSync(join(out, "index.html"), "utf8");
    // latest run: the mixed run with the uniform predictor only
    expect((html.match(/<svg /g) ?? []).length).toBe(3 + 3);
    // headline, family and program means, and entropy tables, no comparison table for one predictor, its per-event
    // and per-program entropy tables, the run history
    expect((html.match(/<table>/g) ?? []).length).toBe(3 + 0 + 2 + 1);
    expect(written.sections.at(-1)).toBe("eval-history");
    // the history lists every stored run, newest first
    const history = JSON.parse(readFileSync(join(out, "metrics.json"), "utf8")).sections["eval-history"] as {
      id: number;
    }[];
    expect(history.map((h) => h.id)).toEqual([first.evalRunId + 2, first.evalRunId + 1, first.evalRunId]);
    expect(html).toContain("Only one predictor was evaluated");
    const metrics = JSON.parse(readFileSync(join(out, "metrics.json"), "utf8")) as {
      sections: { evaluation: { predictors: { name: string }[] } };
    };
    expect(metrics.sections.evaluation.predictors.map((p) => p.name)).toEqual(["uniform"]);
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("| uniform |");
    const earlier = await runCli([
      "report",
      "--db",
      dbPath,
      "--out",
      join(dir, "report1"),
      "--eval-run",
      String(first.evalRunId),
      "--json",
    ]);
    expect(earlier.code).toBe(0);
    expect(readFileSync(join(dir, "report1", "index.html"), "utf8")).toContain("Predictor ngram:3");
  }, 300_000);
});
