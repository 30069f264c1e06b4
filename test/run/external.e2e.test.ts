// End to end: `schedlab run --quick --test-corpus DIR --json` on a small corpus and a tree of
// test-form kernels without go.mod or manifests (test/fixtures/test-corpus), then
// `schedlab eval --holdout corpus:DIR` gives the run's external figures exactly.

import Database from "better-sqlite3";
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { smallCorpus } from "./corpus.js";

const TEST_CORPUS = resolve(import.meta.dirname, "../fixtures/test-corpus");
const PROGRAMS = [
  "patterns/channels/orphan-receiver-leak",
  "patterns/fan/fan-in-merge",
  "generated/pipeline-1001",
  "patterns/workerpool/pool-with-results",
];
const { root, corpus } = smallCorpus(PROGRAMS, "schedlab-external-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const db = join(root, "s.db");
const paths = [
  "--corpus",
  corpus,
  "--db",
  db,
  "--out",
  join(root, "report"),
  "--adapters",
  join(root, "adapters"),
  "--traces",
  join(root, "traces"),
];

interface Section {
  holdout: string;
  evalRunId: number;
  testPrograms: string[];
  families: { train: number; validation: number; test: number };
  best: { name: string; spec: string } | null;
  predictors: { name: string; accuracy: number; ceiling: number; ceilingLoo: number; ece: number }[];
  rollout: { steps: number } | null;
}

describe("schedlab run --test-corpus on a tree of test-form kernels without go.mod or manifests", () => {
  let summary: Section & { external: (Section & { corpus: { label: string; root: string } })[] };

  it("collects the tree as a test corpus and reports it beside the in-distribution holdout", async () => {
    const run = await runCli(["run", "--quick", "--test-corpus", TEST_CORPUS, "--json", ...paths]);
    expect(run.stderr).not.toMatch(/schedlab: error/);
    expect(run.code).toBe(0);
    summary = JSON.parse(run.stdout) as typeof summary;
    expect(summary.external).toHaveLength(1);
    const external = summary.external[0]!;
    expect(external.corpus).toEqual({ label: "test-corpus", root: TEST_CORPUS });
    expect(external.holdout).toBe(`corpus:${TEST_CORPUS}`);
    expect(external.testPrograms).toEqual([
      "test-corpus/inventory/reserve",
      "test-corpus/inventory/restock",
      "test-corpus/ledger/audit",
      "test-corpus/ledger/flush",
    ]);
    // Families of an unlabelled tree are its folders: inventory and ledger.
    expect(external.families.test).toBe(2);
    // Trained on every corpus program (none held out in-distribution), none of the test corpus.
    expect(external.families.train).toBe(4);
    expect(summary.testPrograms.some((p) => p.startsWith("test-corpus/"))).toBe(false);
    expect(external.predictors.map((p) => p.name)).toEqual([
      "uniform",
      "majority",
      "ngram:3",
      "cal:ngram:3",
      "student:kl",
      "student:kl-tags",
    ]);
    expect(external.best?.spec).toContain(join(root, "adapters", "quick-external-"));
    expect(external.rollout?.steps).toBe(10);
    for (const p of external.predictors) expect(p.accuracy).toBeLessThanOrEqual(p.ceiling + 1e-12);
    const read = new Database(db, { readonly: true });
    try {
      expect(read.prepare("SELECT label, role FROM corpora WHERE root = ?").get(TEST_CORPUS)).toEqual({
        label: "test-corpus",
        role: "test",
      });
    } finally {
      read.close();
    }
  });

  it("gives the same figures from `schedlab eval --holdout corpus:DIR`", async () => {
    const external = summary.external[0]!;
    const students = ["kl", "kl-tags"].map((n) => `student:${join(root, "adapters", `quick-external-${n}`)}`);
    const predictors = ["uniform", "majority", "ngram:3", "cal:ngram:3", ...students].flatMap((p) => [
      "--predictor",
      p,
    ]);
    const result = await runCli([
      "eval",
      ...predictors,
      "--abstraction",
      "depth",
      "--holdout",
      `corpus:${TEST_CORPUS}`,
      "--db",
      db,
      "--resamples",
      "200",
      "--json",
      "--no-store",
    ]);
    expect(result.code).toBe(0);
    const evaluated = JSON.parse(result.stdout) as {
      testPrograms: string[];
      predictors: { accuracy: number; ece: number; ceiling: number; ceilingLoo: number }[];
    };
    expect(evaluated.testPrograms).toEqual(external.testPrograms);
    expect(evaluated.predictors.map((p) => [p.accuracy, p.ece, p.ceiling, p.ceilingLoo])).toEqual(
      external.predictors.map((p) => [p.accuracy, p.ece, p.ceiling, p.ceilingLoo]),
    );
  });

  it("skips every stage of a second run, the external ones included", async () => {
    const again = await runCli(["run", "--quick", "--test-corpus", TEST_CORPUS, "--json", ...paths]);
    expect(again.code).toBe(0);
    const stages = (JSON.parse(again.stdout) as { stages: { stage: string; status: string }[] }).stages;
    expect(stages.map((s) => s.stage)).toEqual([
      "collect",
      "ingest",
      "distributions",
      "train",
      "eval",
      "rollout",
      "train:external",
      "eval:test-corpus",
      "rollout:test-corpus",
      "cv",
      "leaks",
      "report",
    ]);
    expect(stages.every((s) => s.status === "skipped")).toBe(true);
  });
});
