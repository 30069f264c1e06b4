import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { cleanManifest, insertProgram, insertRun, leakManifest, scratchDatabase } from "./db-fixture.js";
import { records } from "./records.js";
import type { RecordSpec } from "./records.js";

// Program a (clean) has 3 runs, program b (leak) 2: hand-countable split distributions.
const blockFirst: RecordSpec[] = [
  ["Initial", 1, "Running"],
  ["GoCreate", 2],
  ["GoBlock", 1, "chan receive"],
  ["GoStart", 2],
  ["GoEnd", 2],
];
const startFirst: RecordSpec[] = [
  ["Initial", 1, "Running"],
  ["GoCreate", 2],
  ["GoStart", 2],
  ["GoBlock", 1, "chan receive"],
  ["GoEnd", 2],
];

function fixture(): string {
  const { db, file } = scratchDatabase();
  const a = insertProgram(db, "patterns/a", cleanManifest);
  const b = insertProgram(db, "kernels/b", leakManifest);
  insertRun(db, a, 0, records(blockFirst));
  insertRun(db, a, 1, records(blockFirst));
  insertRun(db, a, 2, records(startFirst));
  insertRun(db, b, 0, records(startFirst));
  insertRun(db, b, 1, records(startFirst));
  db.close();
  return file;
}

interface DistJson {
  states: { program: string; key: string; counts: Record<string, number>; entropy: number; runs: number }[];
  summary: {
    ceiling: number;
    ceilingLoo: number;
    seenOnce: { states: number; samples: number };
    majority: number;
    classFrequencies: Record<string, number>;
    meanEntropy: number;
    multiOutcomeShare: number;
  };
  cap: { maxSamplesPerProgram: number; capped: { program: string; samples: number; stride: number }[] } & object;
}

describe("schedlab dist", () => {
  it("prints per-state counts, entropy and runs with hand-checked summary numbers", async () => {
    const db = fixture();
    const result = await runCli(["dist", "--abstraction", "split", "--db", db, "--json", "--holdout", "dir:patterns"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as DistJson;
    expect(Object.keys(json)).toEqual(["states", "summary", "cap"]);
    expect(json.cap).toEqual({
      maxSamplesPerProgram: 100_000,
      programsCapped: 0,
      samplesDropped: 0,
      statesDropped: null,
      capped: [],
    });
    expect(Object.keys(json.summary).sort()).toEqual([
      "ceiling",
      "ceilingLoo",
      "classFrequencies",
      "majority",
      "meanEntropy",
      "multiOutcomeShare",
      "seenOnce",
    ]);
    // 4 events per run: split points at event indices 1, 2, 3.
    const byKey = new Map(json.states.map((s) => [s.key, s]));
    expect(json.states.every((s) => s.program === "patterns/a")).toBe(true);
    expect(Object.keys(json.states[0])).toEqual(["program", "key", "counts", "entropy", "runs"]);
    expect(byKey.get("split=25")!.counts).toEqual({
      GoCreate: 0,
      GoStart: 1,
      GoBlock: 2,
      GoUnblock: 0,
      GoSched: 0,
      GoEnd: 0,
    });
    expect(byKey.get("split=25")!.entropy).toBeCloseTo(0.918296, 5); // H(1/3, 2/3)
    expect(byKey.get("split=25")!.runs).toBe(3);
    expect(byKey.get("split=75")!.counts.GoEnd).toBe(3);
    // Ceiling: (2 + 2 + 3) / 9. Majority learned on kernels/b (train): its split samples are
    // GoStart, GoBlock, GoEnd twice each → tie → GoStart (EVENT_TYPES order), which is
    // the next event in 1 + 2 of the 9 test samples (split=25 and split=50).
    expect(json.summary.ceiling).toBeCloseTo(7 / 9, 12);
    // Leave one run out: in a 2:1 state the minority run sees the majority (0) and each majority
    // run sees a 1:1 tie (½), so split=25 and split=50 give 1 each; split=75 (GoEnd ×3) gives 3.
    expect(json.summary.ceilingLoo).toBeCloseTo(5 / 9, 12);
    expect(json.summary.seenOnce).toEqual({ states: 0, samples: 0 });
    expect(json.summary.majority).toBeCloseTo(3 / 9, 12);
    expect(json.summary.multiOutcomeShare).toBeCloseTo(2 / 3, 12);
    expect(json.summary.meanEntropy).toBeCloseTo((2 * 0.918296) / 3, 5);
    expect(json.summary.classFrequencies.GoEnd).toBeCloseTo(1 / 3, 12);
  });

  it("renders a table on a terminal and filters by program", async () => {
    const db = fixture();
    const result = await runCli(["dist", "--abstraction", "depth", "--db", db, "--program", "kernels/b"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("abstraction depth: 4 states over 1 programs");
    expect(result.stdout).toMatch(/kernels\/b\s+depth=1\s+·\s+2 \(1\.00\)/);
    expect(result.stdout).toContain("ceiling (mode of p̂): 100.0%");
    expect(result.stdout).toContain("sample cap 100000 per program: no program above it");
  });

  it("caps a program's samples and says so: every s-th sample of each run, the depths kept from every run", async () => {
    const db = fixture();
    // kernels/b: 2 runs × 4 events = 8 depth samples; under a cap of 3, stride 3 would keep depths 0
    // and 3 of each run (4 samples), so stride 4 keeps depth 0 of each run: 2 samples, 1 state.
    const result = await runCli([
      "dist",
      "--abstraction",
      "depth",
      "--db",
      db,
      "--program",
      "kernels/b",
      "--max-samples-per-program",
      "3",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("abstraction depth: 1 states over 1 programs");
    expect(result.stdout).toMatch(/kernels\/b\s+depth=0\s/);
    expect(result.stdout).toContain(
      "capped: 1 program(s) above 3 samples, each sampled evenly along its runs (6 of their 8 samples dropped, " +
        "3 of their 4 states): kernels/b (8 samples, 1 in 4 kept)",
    );
    const json = JSON.parse(
      (await runCli(["dist", "--abstraction", "depth", "--db", db, "--json", "--max-samples-per-program", "3"])).stdout,
    ) as DistJson;
    expect(json.cap.capped).toEqual([
      { program: "kernels/b", samples: 8, stride: 4, kept: 2, states: { total: 4, kept: 1 } },
      { program: "patterns/a", samples: 12, stride: 4, kept: 3, states: { total: 4, kept: 1 } },
    ]);
    expect(json.states.every((s) => s.runs === (s.program === "kernels/b" ? 2 : 3))).toBe(true);
  });

  it("explains bad options and a missing database", async () => {
    const db = fixture();
    const bad = await runCli(["dist", "--abstraction", "nope", "--db", db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--abstraction split | depth | goroutine | context");
    const missing = await runCli(["dist", "--abstraction", "split", "--db", "/nonexistent/x.db"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("schedlab collect");
    const program = await runCli(["dist", "--abstraction", "split", "--db", db, "--program", "ghost"]);
    expect(program.stderr).toContain("no ingested runs for program ghost");
  });
});

describe("schedlab dist --save-holdout", () => {
  it("saves a holdout by name and reuses it", async () => {
    const db = fixture();
    const save = await runCli([
      "dist",
      "--abstraction",
      "split",
      "--db",
      db,
      "--holdout",
      "tag:select",
      "--save-holdout",
      "leaks",
      "--json",
    ]);
    expect(save.code).toBe(0);
    expect(save.stderr).toContain("saved holdout leaks: 1 test programs");
    const reuse = await runCli(["dist", "--abstraction", "split", "--db", db, "--holdout", "leaks", "--json"]);
    const json = JSON.parse(reuse.stdout) as DistJson;
    expect(new Set(json.states.map((s) => s.program))).toEqual(new Set(["kernels/b"]));
    expect((await runCli(["dist", "--abstraction", "split", "--db", db, "--save-holdout", "x"])).code).toBe(2);
  });
});
