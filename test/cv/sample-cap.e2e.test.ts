// The per-program sample cap of train, eval and eval --cv (--max-samples-per-program) end to end
// on real traces of bundled programs: collected once, ingested whole and as excerpts. A capped
// command holds, trains on and scores at most N depth states and samples per program, the same
// states for every predictor and for the training and the scoring of a fold, at the whole-run
// positions 0, s, 2s … (an excerpt's too), and says so in its output and JSON.

import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect } from "../../src/collect/index.js";
import { runCrossValidation } from "../../src/cv/index.js";
import { ingestedPrograms, loadSide, type SplitSide } from "../../src/dataset/index.js";
import { openDatabase, type SchedlabDatabase } from "../../src/store/index.js";
import { countRunEvents, ingestRuns, loadRunExcerpt } from "../../src/trace/index.js";
import { runCli } from "../helpers/cli.js";

const CORPUS = fileURLToPath(new URL("../../go-programs/", import.meta.url));
// Four families, runs of a few hundred to a few thousand events: every one above the cap.
const PROGRAMS = [
  "generated/sharedstate-1035",
  "kernels/chanctx/streamreader",
  "kernels/lockorder/rankedtransfer",
  "kernels/selectnone/nilcases",
];
const N = 40;

let dir: string;
let whole: string;
let cut: string;

interface CapJson {
  maxSamplesPerProgram: number;
  programsCapped: number;
  samplesDropped: number;
  statesDropped: number | null;
  capped: {
    program: string;
    samples: number;
    stride: number;
    kept: number;
    states?: { total: number; kept: number };
  }[];
}

/** The depth position of each of a side's states, by program. */
function depthPositions(side: SplitSide): Map<string, number[]> {
  const byProgram = new Map<string, number[]>();
  for (const state of side.states) {
    const position = Number(/^depth=(\d+)$/.exec(state.key)![1]);
    byProgram.set(state.program, [...(byProgram.get(state.program) ?? []), position]);
  }
  return byProgram;
}

function withDatabase<T>(file: string, use: (db: SchedlabDatabase) => T): T {
  const db = openDatabase(file);
  try {
    return use(db);
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-sample-cap-"));
  const collected = join(dir, "collected.db");
  await collect({ paths: [CORPUS], programs: PROGRAMS, runs: 3, jobs: 2, db: collected, traces: join(dir, "traces") });
  withDatabase(collected, (db) => db.pragma("wal_checkpoint(TRUNCATE)"));
  whole = join(dir, "whole.db");
  cut = join(dir, "cut.db");
  copyFileSync(collected, whole);
  copyFileSync(collected, cut);
  const wholeDb = openDatabase(whole);
  const cutDb = openDatabase(cut);
  try {
    await ingestRuns(wholeDb);
    expect((await ingestRuns(cutDb, { maxStoredRecords: 200 })).excerpts).toBeGreaterThan(3);
  } finally {
    wholeDb.close();
    cutDb.close();
  }
}, 600_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("--max-samples-per-program in train, eval and eval --cv", () => {
  it("eval scores at most N states and samples of each program, at the positions 0, s, 2s …, and reports the cap", async () => {
    const test = "kernels/chanctx/streamreader";
    const args = ["eval", "--db", whole, "--abstraction", "depth", "--holdout", `list:${test}`, "--no-store"];
    const predictors = ["--predictor", "majority", "--predictor", "ngram:3"];
    const result = await runCli([...args, ...predictors, "--max-samples-per-program", String(N), "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as {
      schemaVersion: number;
      cap: CapJson;
      predictors: { name: string; states: number; samples: number; accuracy: number }[];
    };
    expect(json.schemaVersion).toBe(5);
    expect(json.cap.maxSamplesPerProgram).toBe(N);
    // Every program of the split (fit, validation, test) is above the cap.
    expect(json.cap.capped.map((c) => c.program)).toEqual(PROGRAMS);
    expect(json.cap.programsCapped).toBe(PROGRAMS.length);
    for (const c of json.cap.capped) {
      expect(c.samples).toBeGreaterThan(N);
      expect(c.stride).toBeGreaterThan(1);
      expect(c.kept).toBeLessThanOrEqual(N);
      expect(c.states!.kept).toBeLessThanOrEqual(N);
    }
    expect(json.cap.samplesDropped).toBe(json.cap.capped.reduce((n, c) => n + c.samples - c.kept, 0));
    expect(json.cap.statesDropped).toBeGreaterThan(0);
    const capped = withDatabase(whole, (db) => loadSide(db, "depth", [test], "plain", N));
    const stride = json.cap.capped.find((c) => c.program === test)!.stride;
    // Every predictor is scored on the same states: the capped side's, each at a multiple of the stride.
    for (const p of json.predictors) {
      expect(p.states).toBe(capped.states.length);
      expect(p.samples).toBe(capped.samples.length);
      expect(p.samples).toBeLessThanOrEqual(N);
    }
    const positions = depthPositions(capped).get(test)!;
    expect(positions.every((p) => p % stride === 0)).toBe(true);
    // Spread along the whole run, not a truncated start: the last kept position is in the run's last stride.
    const longest = withDatabase(whole, (db) =>
      Math.max(...[...capped.runs.keys()].map((runId) => countRunEvents(db, runId))),
    );
    expect(Math.max(...positions)).toBeGreaterThan(longest - 1 - stride);

    const text = await runCli([...args, ...predictors, "--max-samples-per-program", String(N)]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`capped: ${PROGRAMS.length} program(s) above ${N} samples`);
  }, 120_000);

  it("changes nothing where the cap does not bind: the figures of the default cap and of a huge one are the same", async () => {
    const args = ["eval", "--db", whole, "--abstraction", "depth", "--holdout", "list:kernels/selectnone/nilcases"];
    const run = async (...more: string[]) => {
      const result = await runCli([...args, "--predictor", "ngram:3", "--no-store", "--json", ...more]);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as { cap: CapJson; predictors: unknown[] };
    };
    const byDefault = await run();
    const huge = await run("--max-samples-per-program", "1000000000");
    expect(byDefault.cap).toMatchObject({ maxSamplesPerProgram: 100_000, programsCapped: 0, capped: [] });
    expect(huge.cap).toMatchObject({ programsCapped: 0, samplesDropped: 0 });
    expect(huge.predictors).toEqual(byDefault.predictors);
    const capped = await run("--max-samples-per-program", String(N));
    expect(capped.predictors).not.toEqual(byDefault.predictors);
  }, 120_000);

  it("eval --cv trains and tests each fold on at most N per program, the same states for training and scoring", async () => {
    const adapters = mkdtempSync(join(dir, "adapters-"));
    const db = openDatabase(whole);
    const run = await runCrossValidation(db, {
      predictors: ["majority", "ngram:3", "student:kl"],
      abstractions: ["depth"],
      folds: 2,
      adapters,
      student: { model: "logreg", epochs: 3 },
      bootstrapResamples: 100,
      maxSamplesPerProgram: N,
    }).finally(() => db.close());
    const [depth] = run.abstractions;
    expect(depth!.failures).toEqual([]);
    expect(depth!.sampleCap.maxSamplesPerProgram).toBe(N);
    expect(depth!.sampleCap.capped.map((c) => c.program)).toEqual(PROGRAMS);
    const sides = withDatabase(whole, (db) =>
      ingestedPrograms(db).map((p) => loadSide(db, "depth", [p.name], "plain", N)),
    );
    for (const side of sides) {
      expect(side.samples.length).toBeLessThanOrEqual(N);
      expect(side.states.length).toBeLessThanOrEqual(N);
    }
    // Scored: exactly the capped sides' samples and states, every program once.
    expect(depth!.scores.samples).toBe(sides.reduce((n, s) => n + s.samples.length, 0));
    expect(depth!.scores.states).toBe(sides.reduce((n, s) => n + s.states.length, 0));
    expect(depth!.scores.samples).toBeLessThanOrEqual(PROGRAMS.length * N);
    // Trained: a fold student's states are its fit programs' capped states, the ones they are scored on in the other fold.
    const statesOf = new Map(sides.map((s) => [s.programs[0]!, s.states.length]));
    for (const fold of depth!.folds) {
      const student = fold.students.find((s) => s.recipe === "kl")!;
      const card = JSON.parse(readFileSync(join(student.path, "card.json"), "utf8")) as {
        data: { trainPrograms: string[]; trainStates: number; sampleCap: { maxSamplesPerProgram: number } };
      };
      expect(card.data.sampleCap.maxSamplesPerProgram).toBe(N);
      expect(card.data.trainStates).toBe(card.data.trainPrograms.reduce((n, p) => n + statesOf.get(p)!, 0));
    }

    const cli = await runCli([
      "eval",
      "--db",
      whole,
      "--cv",
      "2",
      "--abstraction",
      "depth",
      "--predictor",
      "ngram:3",
      "--resamples",
      "100",
      "--adapters",
      adapters,
      "--max-samples-per-program",
      String(N),
      "--json",
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    const json = JSON.parse(cli.stdout) as { abstractions: { cap: CapJson; samples: number }[] };
    expect(json.abstractions[0]!.cap.programsCapped).toBe(PROGRAMS.length);
    expect(json.abstractions[0]!.cap.capped.every((c) => c.kept <= N)).toBe(true);
    expect(json.abstractions[0]!.samples).toBe(depth!.scores.samples);
  }, 300_000);

  it("train keeps at most N per program and records the cap on the card", async () => {
    const out = join(dir, "adapter");
    const result = await runCli([
      "train",
      "--db",
      whole,
      "--abstraction",
      "depth",
      "--objective",
      "kl",
      "--model",
      "logreg",
      "--epochs",
      "3",
      "--holdout",
      "list:kernels/chanctx/streamreader",
      "--max-samples-per-program",
      String(N),
      "--out",
      out,
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const card = JSON.parse(result.stdout) as {
      data: {
        trainPrograms: string[];
        trainStates: number;
        holdoutStates: number;
        holdoutSamples: number;
        sampleCap: CapJson;
      };
    };
    expect(card.data.sampleCap.maxSamplesPerProgram).toBe(N);
    expect(card.data.sampleCap.capped.map((c) => c.program)).toEqual(PROGRAMS);
    expect(card.data.trainStates).toBeLessThanOrEqual(card.data.trainPrograms.length * N);
    expect(card.data.holdoutSamples).toBeLessThanOrEqual(N);
    expect(readFileSync(join(out, "card.md"), "utf8")).toContain(`capped: ${PROGRAMS.length} program(s) above ${N}`);
  }, 120_000);

  it("strides over an excerpt's whole-run positions, the ones the whole run gives", () => {
    withDatabase(cut, (db) => {
      const names = ingestedPrograms(db).map((p) => p.name);
      const side = loadSide(db, "depth", names, "plain", N);
      const strideOf = new Map(side.capped.map((c) => [c.program, c.stride]));
      let beyondStored = 0;
      for (const [program, positions] of depthPositions(side)) {
        expect(positions.length).toBeLessThanOrEqual(N);
        expect(positions.every((p) => p % strideOf.get(program)! === 0)).toBe(true);
        const runs = [...side.runs.values()].filter((r) => r.program === program);
        const stored = Math.max(...runs.map((r) => countRunEvents(db, r.runId)));
        beyondStored += positions.filter((p) => p >= stored).length;
      }
      expect(side.runs.size).toBeGreaterThan(0);
      expect([...side.runs.keys()].some((runId) => loadRunExcerpt(db, runId) !== null)).toBe(true);
      // Positions past the stored events exist only as whole-run positions of later windows.
      expect(beyondStored).toBeGreaterThan(0);
      for (const program of names)
        expect(side.samples.filter((s) => s.program === program).length).toBeLessThanOrEqual(N);
    });
  });
});
