// End to end: `schedlab run --quick` on four real programs of the corpus (its CV stage included),
// then again to see every stage skipped, then --json; and the pure parts (categories, subset, hashes).

import Database from "better-sqlite3";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ProgramSpec } from "../../src/corpus/index.js";
import type { CrossValidationBoard } from "../../src/report/sections/crossValidation.js";
import { contentHash, stratifiedSubset } from "../../src/run/index.js";
import { runCli } from "../helpers/cli.js";
import { smallCorpus } from "./corpus.js";

const PROGRAMS = [
  "patterns/channels/orphan-receiver-leak",
  "patterns/fan/fan-in-merge",
  "generated/pipeline-1001",
  "patterns/workerpool/pool-with-results",
];
const { root, corpus } = smallCorpus(PROGRAMS);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const paths = [
  "--corpus",
  corpus,
  "--db",
  join(root, "s.db"),
  "--out",
  join(root, "report"),
  "--adapters",
  join(root, "adapters"),
  "--traces",
  join(root, "traces"),
];

interface JsonSummary {
  schemaVersion: number;
  reportPath: string;
  evalRunId: number;
  best: { name: string; spec: string; selectedBy: string; validationAccuracy: number | null } | null;
  families: { train: number; validation: number; test: number };
  predictors: {
    name: string;
    accuracy: number;
    otherRunsAccuracy: number;
    ceiling: number;
    majority: number;
    ece: number;
    eceInterval: { estimate: number; lower: number; upper: number };
    macroF1: number;
    recall: Record<string, number | null>;
  }[];
  leaks: { findings: number; programsWithFindings: number; programsAnalysed: number; recall: number | null };
  rollout: { steps: number; meanSurvival: number } | null;
  crossValidation: CrossValidationBoard | null;
  stages: { stage: string; status: string }[];
}

describe("schedlab run --quick on a four-program corpus", () => {
  let first: Awaited<ReturnType<typeof runCli>>;

  it("runs every stage and prints the report path and six summary lines", async () => {
    first = await runCli(["run", "--quick", ...paths]);
    expect(first.stderr).not.toMatch(/schedlab: error/);
    expect(first.code).toBe(0);
    const lines = first.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(7);
    // Leave-family-out CV over the four families, three folds, at depth and split: the headline. Four
    // families are too few to resample, so the unit is the program and only the program mean is shown.
    expect(lines[0]).toMatch(
      /^cross-validation \(3 folds of families\): depth student:(kl|kl-tags) \d+\.\d% \[\d+\.\d, \d+\.\d\] pooled \(half its samples from \d+ of 4 programs\) vs ngram-ctx:4 \d+\.\d%, program mean \d+\.\d% \[\d+\.\d, \d+\.\d\] vs ngram-ctx:4 \d+\.\d%, behind it on \d+ of \d+ programs by > 2 points; on the runs it did not read \d+\.\d%, LOO ceiling \d+\.\d% \(gap −?\d+\.\d points\); ECE \d\.\d{3} pooled, \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\] program mean vs ngram-ctx:4 \d\.\d{3}, 90% sets cover \d+\.\d%; split student:/,
    );
    expect(lines[1]).toMatch(
      /^holdout: best student student:(kl|kl-tags) \(chosen on validation\): accuracy \d+\.\d% \[\d+\.\d, \d+\.\d\] pooled \(half its samples from \d+ of \d+ programs?\), program mean \d+\.\d% \[\d+\.\d, \d+\.\d\], \d+\.\d% on the runs it did not read, vs majority \d+\.\d% vs ceiling \d+\.\d% \(leave-one-run-out \d+\.\d%\) on \d+ held-out programs \(\d+ famil(y|ies), depth states\)$/,
    );
    expect(lines[3]).toMatch(/^calibration \(ECE, lower is better\): uniform /);
    expect(lines[4]).toMatch(
      /^leaks found: [1-9]\d* bugs \(\d+ proven\) leaving [1-9]\d* goroutines blocked forever in [1-9] of 4 programs/,
    );
    expect(lines[5]).toMatch(/^rollout of student:/);
    expect(lines[6]).toBe(`report: ${join(root, "report", "index.html")}`);
    for (const stage of ["collect", "ingest", "distributions", "train", "eval", "rollout", "cv", "leaks", "report"]) {
      expect(first.stderr).toMatch(new RegExp(`\\[${stage}\\] done in \\d+\\.\\d+s`));
    }
    const html = readFileSync(join(root, "report", "index.html"), "utf8");
    for (const id of ["overview", "cross-validation", "leaks", "rollout"])
      expect(html).toContain(`<section id="${id}">`);
    // The CV scoreboard sits right after the holdout's summary and comparisons.
    expect(html.indexOf('<section id="cross-validation">')).toBeGreaterThan(html.indexOf('<section id="comparisons">'));
    expect(html.indexOf('<section id="cross-validation">')).toBeLessThan(html.indexOf('<section id="predictor-1-'));
    expect(readFileSync(join(root, "report", "report.md"), "utf8")).toMatch(
      /## Leave-family-out cross-validation \(3 folds\)\n\n### depth\n/,
    );
    expect(existsSync(join(root, "adapters", "cv"))).toBe(true);
    expect(html).toContain("orphan-receiver-leak");
    expect(existsSync(join(root, "adapters", "quick-kl-tags", "card.json"))).toBe(true);
    // The subset is collected from the corpus root, so programs keep the names a full run gives them.
    const db = new Database(join(root, "s.db"), { readonly: true });
    try {
      expect(db.prepare("SELECT name FROM programs ORDER BY name").pluck().all()).toEqual([...PROGRAMS].sort());
      expect(db.prepare("SELECT DISTINCT root FROM programs").pluck().all()).toEqual([corpus]);
    } finally {
      db.close();
    }
  });

  it("skips every stage on a second run and reports the same results as JSON", async () => {
    const second = await runCli(["run", "--quick", "--json", ...paths]);
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.stdout) as JsonSummary;
    expect(summary.schemaVersion).toBe(3);
    expect(summary.stages.map((s) => `${s.stage}:${s.status}`)).toEqual(
      ["collect", "ingest", "distributions", "train", "eval", "rollout", "cv", "leaks", "report"].map(
        (s) => `${s}:skipped`,
      ),
    );
    // The CV board, as the report shows it: both abstractions, the pipeline's predictors and the reference.
    expect(summary.crossValidation?.folds).toBe(3);
    expect(summary.crossValidation?.abstractions.map((a) => a.abstraction)).toEqual(["depth", "split"]);
    for (const a of summary.crossValidation?.abstractions ?? []) {
      expect(a.predictors.map((p) => p.name)).toEqual([
        "uniform",
        "majority",
        "ngram:3",
        "cal:ngram:3",
        "student:kl",
        "student:kl-tags",
        "ngram-ctx:4",
      ]);
      for (const p of a.predictors) {
        expect(p.accuracy.lower).toBeLessThanOrEqual(p.accuracy.estimate + 1e-12);
        expect(p.gapToCeiling).toBeCloseTo(a.ceiling - p.accuracy.estimate, 12);
        expect(p.gapToCeilingLoo).toBeCloseTo(a.ceilingLoo - p.otherRuns!.estimate, 12);
        expect(p.otherRunsEce?.estimate).toBeGreaterThanOrEqual(0);
        expect(p.coverage?.estimate).toBeGreaterThanOrEqual(0);
        expect(p.setSize?.estimate).toBeGreaterThanOrEqual(0);
      }
    }
    expect(summary.reportPath).toBe(join(root, "report", "index.html"));
    expect(summary.predictors.map((p) => p.name)).toEqual([
      "uniform",
      "majority",
      "ngram:3",
      "cal:ngram:3",
      "student:kl",
      "student:kl-tags",
    ]);
    // The headline student is chosen on the validation families, never on test.
    expect(summary.best?.selectedBy).toBe("validation accuracy");
    expect(summary.best?.validationAccuracy).toBeGreaterThan(0);
    expect(summary.families.test).toBeGreaterThanOrEqual(1);
    for (const p of summary.predictors) {
      expect(p.accuracy).toBeGreaterThanOrEqual(0);
      expect(p.accuracy).toBeLessThanOrEqual(p.ceiling + 1e-9);
      expect(Object.keys(p.recall)).toEqual(["GoCreate", "GoStart", "GoBlock", "GoUnblock", "GoSched", "GoEnd"]);
    }
    // A tie of six labels earns 1/6 of every sample at confidence 1/6: exactly 1/6, perfectly calibrated.
    const uniform = summary.predictors[0]!;
    expect(uniform.accuracy).toBeCloseTo(1 / 6, 12);
    expect(uniform.otherRunsAccuracy).toBeCloseTo(1 / 6, 12);
    expect(uniform.ece).toBeCloseTo(0, 12);
    expect(uniform.eceInterval.estimate).toBeCloseTo(uniform.ece, 12);
    expect(uniform.eceInterval.lower).toBeLessThanOrEqual(uniform.eceInterval.upper);
    expect(summary.leaks.programsAnalysed).toBe(4);
    expect(summary.leaks.findings).toBeGreaterThanOrEqual(1);
    expect(summary.rollout?.steps).toBe(10);
    expect(first.stdout).toContain(summary.best?.name ?? "none");
  });

  it("redoes the analysis stages with --force but resumes the recorded runs", async () => {
    const forced = await runCli(["run", "--quick", "--force", "--json", ...paths]);
    expect(forced.code).toBe(0);
    const summary = JSON.parse(forced.stdout) as JsonSummary;
    expect(summary.stages.every((s) => s.status === "done")).toBe(true);
    expect(forced.stderr).toMatch(/\[collect\] done in [\d.]+s: 4 programs, 0 runs executed, 12 resumed/);
  });
});

describe("schedlab run input errors", () => {
  it("names a missing corpus and what to pass instead", async () => {
    const result = await runCli(["run", "--corpus", join(root, "nowhere"), "--db", join(root, "x.db")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/corpus directory .*nowhere does not exist/);
    expect(result.stderr).toMatch(/--corpus DIR/);
  });
});

describe("the --quick subset", () => {
  const spec = (name: string, dir = `/c/${name}`): ProgramSpec =>
    ({
      name,
      dir,
      root: "/c",
      kind: "main",
      testName: null,
      goFiles: [],
      testFiles: [],
      sourceHash: "",
      manifest: null,
      manifestProblems: [],
    }) as ProgramSpec;

  it("takes one program per family by name hash, whatever the base names, and is stable", () => {
    const generated = (name: string, template: string) =>
      ({ ...spec(name), manifest: { generated: { template, seed: 1 } } }) as unknown as ProgramSpec;
    const programs = [
      spec("kernels/abba/a"),
      spec("kernels/abba/b"),
      spec("kernels/chanwg/c"),
      generated("generated/fanin-1", "fanin"),
      generated("generated/fanin-2", "fanin"),
      generated("generated/pipeline-3", "pipeline"),
      spec("patterns/x/c"),
    ];
    const picked = stratifiedSubset(programs).map((p) => p.name);
    expect(picked.filter((n) => n.startsWith("kernels/abba/"))).toHaveLength(1);
    expect(picked.filter((n) => n.startsWith("generated/fanin-"))).toHaveLength(1);
    expect(picked).toContain("generated/pipeline-3");
    // kernels/chanwg/c and patterns/x/c share the base name "c" but keep their full names.
    expect(picked.filter((n) => n.endsWith("/c"))).toEqual(["kernels/chanwg/c", "patterns/x/c"]);
    expect(picked).toHaveLength(5);
    expect(stratifiedSubset([...programs].reverse()).map((p) => p.name)).toEqual(picked);
  });

  it("hashes equal inputs equally and different inputs differently", () => {
    expect(contentHash({ a: 1, b: [2] })).toBe(contentHash({ a: 1, b: [2] }));
    expect(contentHash({ a: 1, b: [2] })).not.toBe(contentHash({ a: 1, b: [3] }));
  });
});
