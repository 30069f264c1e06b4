// `eval --cv` end to end on five real traced Go programs: every program tested once, students
// trained per fold and reused from the cache on a rerun, and the CLI's JSON and text.

import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCrossValidation } from "../../src/cv/index.js";
import { loadSide, selectPrograms } from "../../src/dataset/index.js";
import { openDatabase } from "../../src/store/index.js";
import { runCli } from "../helpers/cli.js";
import { FIXTURE_PROGRAMS, traceFixtures, type TracedCorpus } from "../train/traced-runs.js";

describe("eval --cv on real traces", () => {
  let corpus: TracedCorpus;
  let adapters: string;
  beforeAll(async () => {
    corpus = await traceFixtures(FIXTURE_PROGRAMS, 3);
    adapters = mkdtempSync(join(tmpdir(), "schedlab-cv-adapters-"));
  }, 120_000);
  afterAll(() => {
    rmSync(corpus.scratch, { recursive: true, force: true });
    rmSync(adapters, { recursive: true, force: true });
  });

  const options = () => ({
    predictors: ["majority", "ngram:3", "student:kl"],
    abstractions: ["depth" as const],
    folds: 2,
    adapters,
    student: { model: "logreg" as const, epochs: 4 },
    bootstrapResamples: 200,
  });

  it("tests every program once, trains the fold students, scores against ngram-ctx:4, and reuses the students", async () => {
    const db = openDatabase(corpus.dbPath);
    try {
      const run = await runCrossValidation(db, options());
      const [depth] = run.abstractions;
      expect(run.reference).toBe("ngram-ctx:4");
      expect(depth!.folds).toHaveLength(2);
      expect(depth!.folds.flatMap((f) => f.families).sort()).toEqual([...FIXTURE_PROGRAMS].sort());
      expect(depth!.folds.reduce((n, f) => n + f.testPrograms, 0)).toBe(FIXTURE_PROGRAMS.length);
      // No program trains in its own fold: fit + validation + test = all five in every fold.
      for (const f of depth!.folds)
        expect(f.trainPrograms + f.validationPrograms + f.testPrograms).toBe(FIXTURE_PROGRAMS.length);
      const all = loadSide(
        db,
        "depth",
        selectPrograms(db).map((p) => p.name),
      );
      expect(depth!.scores.samples).toBe(all.samples.length);
      expect(depth!.folds.reduce((n, f) => n + f.testSamples, 0)).toBe(all.samples.length);
      expect(depth!.scores.predictors.map((p) => p.name)).toEqual(["majority", "ngram:3", "student:kl", "ngram-ctx:4"]);
      expect(depth!.scores.againstReference.map((d) => d.predictor)).toEqual(["majority", "ngram:3", "student:kl"]);
      for (const p of depth!.scores.predictors) {
        expect(p.accuracy.estimate).toBeGreaterThan(0);
        expect(p.accuracy.lower).toBeLessThanOrEqual(p.accuracy.estimate);
        expect(p.accuracy.upper).toBeGreaterThanOrEqual(p.accuracy.estimate);
        expect(p.nll.estimate).toBeGreaterThan(0);
        // The gap is taken on the runs each prefix was not read from, the samples the LOO ceiling scores alike.
        expect(p.gapToCeilingLoo).toBeCloseTo(depth!.scores.ceilingLoo - p.otherRunsAccuracy.estimate, 12);
        expect(p.otherRunsAccuracy.lower).toBeLessThanOrEqual(p.otherRunsAccuracy.estimate);
        expect(p.otherRunsAccuracy.upper).toBeGreaterThanOrEqual(p.otherRunsAccuracy.estimate);
        // Conformal sets calibrated in both folds on their validation families.
        expect(p.conformal?.foldThresholds).toHaveLength(2);
        expect(p.conformal!.coverage.estimate).toBeGreaterThan(0);
        expect(p.conformal!.coverage.estimate).toBeLessThanOrEqual(1);
        expect(p.conformal!.setSize.estimate).toBeGreaterThanOrEqual(p.conformal!.coverage.estimate);
        expect(p.conformal!.setSize.estimate).toBeLessThanOrEqual(6);
      }
      expect(depth!.scores.clusterUnit).toEqual({ unit: "family", clusters: 5 });
      const students = depth!.folds.flatMap((f) => f.students);
      expect(students.map((s) => s.reused)).toEqual([false, false]);
      for (const s of students) expect(existsSync(join(s.path, "card.json"))).toBe(true);
      // A fold student knows its test fold's programs (their static features) but never scored its states: CV does.
      depth!.folds.forEach((f, i) => {
        const card = JSON.parse(readFileSync(join(students[i]!.path, "card.json"), "utf8"));
        expect(card.data.holdoutPrograms).toHaveLength(f.testPrograms);
        expect([card.data.holdoutStates, card.data.holdoutSamples, card.holdout]).toEqual([0, 0, null]);
      });
      expect(students[0]!.path).toContain(join(adapters, "cv"));
      expect(depth!.failures).toEqual([]);

      const again = await runCrossValidation(db, options());
      expect(again.abstractions[0]!.folds.flatMap((f) => f.students).map((s) => s.reused)).toEqual([true, true]);
      expect(again.abstractions[0]!.scores.predictors.map((p) => p.accuracy.estimate)).toEqual(
        depth!.scores.predictors.map((p) => p.accuracy.estimate),
      );
    } finally {
      db.close();
    }
  }, 120_000);

  it("runs from the CLI as eval --cv K --json", async () => {
    const cvArgs = (...more: string[]): string[] => [
      "eval",
      "--db",
      corpus.dbPath,
      "--cv",
      "2",
      "--abstraction",
      "split",
      "--predictor",
      "ngram:3",
      "--resamples",
      "100",
      "--adapters",
      adapters,
      ...more,
    ];
    const result = await runCli(cvArgs("--json"));
    expect(result.stderr).not.toContain("failed");
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as {
      schemaVersion: number;
      cv: { folds: number; reference: string };
      abstractions: {
        abstraction: string;
        predictors: { name: string; otherRunsAccuracy: { estimate: number }; gapToCeilingLoo: number }[];
        ceilingLoo: number;
        folds: unknown[];
      }[];
    };
    expect(json.schemaVersion).toBe(5);
    for (const p of json.abstractions[0]!.predictors)
      expect(p.gapToCeilingLoo).toBeCloseTo(json.abstractions[0]!.ceilingLoo - p.otherRunsAccuracy.estimate, 12);
    expect(json.cv).toEqual({ folds: 2, seed: 1, reference: "ngram-ctx:4", trainOn: null, holdout: null });
    expect(json.abstractions.map((a) => a.abstraction)).toEqual(["split"]);
    expect(json.abstractions[0]!.predictors.map((p) => p.name)).toEqual(["ngram:3", "ngram-ctx:4"]);
    expect(json.abstractions[0]!.folds).toHaveLength(2);

    const text = await runCli(cvArgs());
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("leave-family-out CV · split · 2 folds (seed 1) · 5 families, 5 programs");
    expect(text.stdout).toMatch(/vs ngram-ctx:4 +accuracy difference/);
    expect(text.stdout).toMatch(/\nngram:3 +[+−]\d+\.\d/);

    // --markdown: the report section's tables, what scripts/cv-table.mjs puts into README.md.
    const markdown = await runCli(cvArgs("--markdown"));
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain("### split");
    expect(markdown.stdout).toMatch(/\| predictor \| accuracy \| 95% CI \|.*\| family mean \|/);
    expect(markdown.stdout).toMatch(/\n\| ngram:3 \| \d+\.\d% \|/);
  }, 60_000);

  it("holds out one source per fold with --cv-by source, and refuses an unknown grouping", async () => {
    const args = ["eval", "--db", corpus.dbPath, "--cv", "--abstraction", "split", "--predictor", "ngram:3"];
    const result = await runCli([...args, "--cv-by", "source", "--json"]);
    expect(result.code).toBe(0);
    const [split] = JSON.parse(result.stdout).abstractions;
    // Each fixture program is a family of its own at the root: a source each, one fold each.
    expect(split.folds.map((f: { families: string[] }) => f.families)).toEqual(
      [...FIXTURE_PROGRAMS].sort().map((p) => [p]),
    );
    const wrong = await runCli([...args, "--cv-by", "directory"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--cv-by");
  }, 60_000);

  // Three programs train, one is tested, one is left out: a training set carried to a holdout.
  const trainOn = "list:condqueue,mutexcounter,workerpool";

  it("--train-on: CV within a training set, and one fold (the holdout) that equals eval --holdout's split", async () => {
    const db = openDatabase(corpus.dbPath);
    try {
      const within = await runCrossValidation(db, { ...options(), abstractions: ["split"], trainOn });
      const [inside] = within.abstractions;
      expect(inside!.folds.flatMap((f) => f.families).sort()).toEqual(["condqueue", "mutexcounter", "workerpool"]);
      for (const f of inside!.folds) expect(f.trainPrograms + f.validationPrograms + f.testPrograms).toBe(3);
      expect(within.trainOn).toEqual({ spec: trainOn, description: "listed programs" });
      expect(within.holdout).toBeUndefined();

      const carried = await runCrossValidation(db, {
        ...options(),
        predictors: ["majority", "ngram:3"],
        abstractions: ["split"],
        trainOn,
        holdout: "list:pingpong",
      });
      const [one] = carried.abstractions;
      expect(carried.folds).toBe(1);
      expect(carried.holdout).toEqual({ spec: "list:pingpong", description: "listed programs" });
      expect(one!.folds).toHaveLength(1);
      expect(one!.folds[0]).toMatchObject({ families: ["pingpong"], testPrograms: 1 });
      expect(one!.folds[0]!.trainPrograms + one!.folds[0]!.validationPrograms).toBe(3);
      // The same split as `eval --holdout list:pingpong --train-on …`: fitted baselines score alike.
      const cli = await runCli([
        "eval",
        "--db",
        corpus.dbPath,
        "--abstraction",
        "split",
        "--holdout",
        "list:pingpong",
        "--train-on",
        trainOn,
        "--predictor",
        "majority",
        "--predictor",
        "ngram:3",
        "--no-store",
        "--json",
      ]);
      expect(cli.code).toBe(0);
      const json = JSON.parse(cli.stdout) as {
        schemaVersion: number;
        trainOn: string | null;
        trainPrograms: string[];
        testPrograms: string[];
        predictors: { name: string; accuracy: number }[];
      };
      expect(json.schemaVersion).toBe(5);
      expect(json.trainOn).toBe(trainOn);
      expect(json.trainPrograms).toEqual(["condqueue", "mutexcounter", "workerpool"]);
      expect(json.testPrograms).toEqual(["pingpong"]);
      for (const p of json.predictors) {
        const scored = one!.scores.predictors.find((q) => q.name === p.name)!;
        expect(scored.accuracy.estimate).toBeCloseTo(p.accuracy, 12);
      }
    } finally {
      db.close();
    }
  }, 120_000);

  it("prints the holdout fold's board as Markdown, and refuses --cv K with --holdout", async () => {
    const args = [
      "eval",
      "--db",
      corpus.dbPath,
      "--abstraction",
      "split",
      "--predictor",
      "ngram:3",
      "--adapters",
      adapters,
    ];
    const markdown = await runCli([...args, "--cv", "--holdout", "list:pingpong", "--train-on", trainOn, "--markdown"]);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain(
      "split: tested on listed programs (1 family), trained on listed programs only, 1 program,",
    );
    expect(markdown.stdout).toContain("One fold, the holdout");
    const text = await runCli([...args, "--cv", "--holdout", "list:pingpong", "--train-on", trainOn]);
    expect(text.stdout).toContain("holdout as one fold · split · tested on listed programs (1 family)");
    const withK = await runCli([...args, "--cv", "2", "--holdout", "list:pingpong"]);
    expect(withK.code).not.toBe(0);
    expect(withK.stderr).toContain("--cv 2 and --holdout do not go together");
  }, 60_000);

  it("refuses a student given as a path, and --markdown without --cv", async () => {
    const withPath = await runCli(["eval", "--db", corpus.dbPath, "--cv", "2", "--predictor", "student:adapters/kl"]);
    expect(withPath.code).not.toBe(0);
    expect(withPath.stderr).toContain("not a student recipe");
    const markdownWithoutCv = await runCli(["eval", "--db", corpus.dbPath, "--abstraction", "split", "--markdown"]);
    expect(markdownWithoutCv.code).not.toBe(0);
    expect(markdownWithoutCv.stderr).toContain("--markdown goes with --cv");
  });
});
