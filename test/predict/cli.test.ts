import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { insertProgram, insertRun, scratchDatabase } from "../dataset/db-fixture.js";
import { closedPort } from "./chat-server.js";
import { records } from "./states.js";

/** Three programs, two runs each, in a real SQLite file laid out as the trace stage leaves it. */
function corpusDatabase(): { file: string; dir: string } {
  const { db, file, dir } = scratchDatabase();
  const runA = records(
    ["GoCreate", 2],
    ["GoStart", 2],
    ["GoBlock", 2, "chan receive"],
    ["GoUnblock", 2],
    ["GoStart", 2],
    ["GoEnd", 2],
  );
  const runB = records(["GoCreate", 2], ["GoStart", 2], ["GoEnd", 2]);
  for (const name of ["alpha", "beta", "gamma"]) {
    const id = insertProgram(db, name);
    insertRun(db, id, 0, runA);
    insertRun(db, id, 1, name === "gamma" ? runA : runB);
  }
  db.close();
  return { file, dir };
}

describe("schedlab predict", () => {
  it("predicts the held-out states, writes a replay file that scores back identically, and caches", async () => {
    const { file, dir } = corpusDatabase();
    const out = join(dir, "preds.jsonl");
    const first = await runCli([
      "predict",
      "--predictor",
      "ngram:2",
      "--abstraction",
      "depth",
      "--holdout",
      "list:gamma",
      "--db",
      file,
      "--out",
      out,
      "--json",
    ]);
    expect(first.stderr).not.toMatch(/error/i);
    expect(first.code).toBe(0);
    const json = JSON.parse(first.stdout) as {
      predictor: { id: string };
      programs: string[];
      hits: number;
      computed: number;
      predictions: Array<{ stateId: string; probabilities: Record<string, number> }>;
    };
    expect(json.predictor.id).toBe("ngram:2");
    expect(json.programs).toEqual(["gamma"]);
    expect(json.computed).toBe(json.predictions.length);
    expect(json.predictions.length).toBeGreaterThan(0);
    for (const p of json.predictions)
      expect(Object.values(p.probabilities).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(readFileSync(out, "utf8").trim().split("\n")).toHaveLength(json.predictions.length);

    // The replay file answers for the same states with the same numbers, and ngram:2 is now cached.
    const replayed = await runCli([
      "predict",
      "--predictor",
      `replay:${out}`,
      "--abstraction",
      "depth",
      "--holdout",
      "list:gamma",
      "--db",
      file,
      "--json",
    ]);
    expect(replayed.code).toBe(0);
    expect((JSON.parse(replayed.stdout) as typeof json).predictions).toEqual(json.predictions);
    const again = await runCli([
      "predict",
      "--predictor",
      "ngram:2",
      "--abstraction",
      "depth",
      "--holdout",
      "list:gamma",
      "--db",
      file,
      "--json",
    ]);
    expect(JSON.parse(again.stdout)).toMatchObject({ hits: json.predictions.length, computed: 0 });
  });

  it("prints a table with the top event per state", async () => {
    const { file } = corpusDatabase();
    const result = await runCli([
      "predict",
      "--predictor",
      "majority",
      "--abstraction",
      "split",
      "--holdout",
      "list:gamma",
      "--db",
      file,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^majority \(config [0-9a-f]{16}\) on \d+ split states of 1 test programs/);
    expect(result.stdout).toMatch(
      /state\s+program\s+key\s+GoCreate\s+GoStart\s+GoBlock\s+GoUnblock\s+GoSched\s+GoEnd\s+top/,
    );
    expect(result.stdout).toContain("gamma");
  });

  it("reports an unreachable endpoint once, with its hint, and exits non-zero", async () => {
    const { file } = corpusDatabase();
    const port = await closedPort();
    const result = await runCli([
      "predict",
      "--predictor",
      "openai:m",
      "--base-url",
      `http://127.0.0.1:${port}/v1`,
      "--abstraction",
      "split",
      "--holdout",
      "list:gamma",
      "--db",
      file,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach the model endpoint http://127.0.0.1:${port}/v1 (ECONNREFUSED)`);
    expect(result.stderr.match(/schedlab:/g)).toHaveLength(1);
    expect(result.stderr).toMatch(/Start the server .* or pass --base-url/);
  });

  it("rejects a bad spec and a bad split with usage errors", async () => {
    const { file } = corpusDatabase();
    const badSpec = await runCli(["predict", "--predictor", "gpt", "--abstraction", "split", "--db", file]);
    expect(badSpec.code).toBe(2);
    expect(badSpec.stderr).toMatch(/unknown predictor "gpt"/);
    const badSplit = await runCli([
      "predict",
      "--predictor",
      "uniform",
      "--abstraction",
      "split",
      "--split",
      "dev",
      "--db",
      file,
    ]);
    expect(badSplit.code).toBe(2);
    expect(badSplit.stderr).toMatch(/--split test \| train \| all/);
  });
});
